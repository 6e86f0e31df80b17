// FXPasses — placeholder until its first file lands.
