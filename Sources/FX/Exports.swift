@_exported import FXCodegen
// The umbrella module: `import FX` gives the effect language, the catalogue,
// image buffers and files, and the pipeline API.
@_exported import FXDSL
@_exported import FXEffects
@_exported import FXIR
@_exported import FXImage
@_exported import FXInterpreter
@_exported import FXLLVM
@_exported import FXMetal
@_exported import FXPasses
@_exported import FXRuntime
