// FXInterpreter — placeholder until its first file lands.
