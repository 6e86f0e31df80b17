// FXEffects — placeholder until its first file lands.
