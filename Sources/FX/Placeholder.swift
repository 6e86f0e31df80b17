// FX — placeholder until its first file lands.
