// FXCodegen — placeholder until its first file lands.
