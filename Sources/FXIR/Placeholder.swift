// FXIR — placeholder until its first file lands.
