internal import CLLVM

extension KernelModule {
  /// Declares an LLVM intrinsic in this module (once; later calls return the
  /// same declaration), ready for ``Builder/call(_:_:attributes:name:)``.
  ///
  /// - Parameters:
  ///   - name: the intrinsic's base name, e.g. `llvm.fma`, `llvm.masked.gather`.
  ///   - overloadedTypes: the types the intrinsic is overloaded on, in LLVM's
  ///     order; empty for a non-overloaded one. For example `[v8f32]` for
  ///     `llvm.floor`, `llvm.sqrt`, `llvm.fabs`, `llvm.minnum`, `llvm.maxnum`,
  ///     `llvm.fma`; `[v8i32, v8f32]` (result, source) for `llvm.fptosi.sat`;
  ///     `[v8f32, ptr]` for `llvm.masked.load` and `llvm.masked.store`;
  ///     `[v8f32, <8 x ptr>]` for `llvm.masked.gather`.
  /// - Throws: ``LLVMError`` if LLVM knows no intrinsic of that name, or if
  ///   types are given for a non-overloaded one or missing for an overloaded one.
  ///   LLVM cannot check the number of types: too few is undefined behaviour.
  package func intrinsic(_ name: String, _ overloadedTypes: [IRType] = []) throws -> Function {
    let id = LLVMLookupIntrinsicID(name, name.utf8.count)
    guard id != 0 else { throw LLVMError("no LLVM intrinsic is called '\(name)'") }
    let overloaded = LLVMIntrinsicIsOverloaded(id) != 0
    if overloaded && overloadedTypes.isEmpty {
      throw LLVMError("intrinsic '\(name)' is overloaded: pass the types it is overloaded on")
    }
    if !overloaded && !overloadedTypes.isEmpty {
      throw LLVMError("intrinsic '\(name)' is not overloaded: pass no types")
    }
    var types: [LLVMTypeRef?] = overloadedTypes.map(\.ref)
    return types.withUnsafeMutableBufferPointer { types in
      let function = LLVMGetIntrinsicDeclaration(module, id, types.baseAddress, types.count)!
      let type = LLVMIntrinsicGetType(context, id, types.baseAddress, types.count)!
      return Function(function, type: IRType(type))
    }
  }
}
