// The syntax tree of a Metal translation unit, as the parser builds it.
// Types are still names here; the translator resolves them (Types.swift).

/// A type as written: `float2`, `metal::half4`, `texture2d<half>`,
/// `device const float *`, `SwiftUI::Layer`, `float3x3`.
struct TypeSyntax: CustomStringConvertible {
  /// The name without `metal::` (`SwiftUI::Layer` keeps its namespace).
  var name: String
  /// Template arguments (`texture2d<half, access::sample>`, `vec<float, 2>`), as written.
  var arguments: [String] = []
  var isPointer = false
  var isReference = false
  /// `constant`, `device`, `thread`, `threadgroup`, `const`, `constexpr`, `static`.
  var qualifiers: Set<String> = []
  var location: SourceLocation

  var description: String {
    (arguments.isEmpty ? name : "\(name)<\(arguments.joined(separator: ", "))>") + (isPointer ? " *" : "")
      + (isReference ? " &" : "")
  }
}

/// An expression as written.
struct ExprSyntax {
  indirect enum Kind {
    case name(String)
    case integer(UInt64, unsigned: Bool)
    case floating(Double, half: Bool)
    case boolean(Bool)
    /// `a op b` for arithmetic, comparison, logical and bitwise operators.
    case binary(String, ExprSyntax, ExprSyntax)
    /// `-a`, `!a`, `~a`, `+a`, `++a`, `--a`.
    case unary(String, ExprSyntax)
    /// `a++`, `a--`.
    case postfix(String, ExprSyntax)
    /// `a = b`, `a += b`, …
    case assign(String, ExprSyntax, ExprSyntax)
    case conditional(ExprSyntax, ExprSyntax, ExprSyntax)
    /// `f(args)`, `float2(args)`, `layer.sample(p)` (callee a member), `T<…>(args)`.
    case call(ExprSyntax, [ExprSyntax])
    /// A type used as a callee: `float2(…)`, `vec<float, 3>(…)`.
    case typeName(TypeSyntax)
    case member(ExprSyntax, String)
    case index(ExprSyntax, ExprSyntax)
    /// `(float)x`, `static_cast<float>(x)`.
    case cast(TypeSyntax, ExprSyntax)
    /// `as_type<T>(e)`: the bits of `e` read as a `T`.
    case bitCast(TypeSyntax, ExprSyntax)
    /// A function template named with explicit arguments, as a callee: `blur<5>(…)`, `mixed<float, 3>(…)`.
    case templateName(String, [TemplateArgument])
    /// `{a, b, c}` for arrays and structs.
    case initializerList([ExprSyntax])
    case comma(ExprSyntax, ExprSyntax)
    /// `sizeof(T)` (a type) or `sizeof(e)` / `sizeof e` (an expression's type).
    case sizeOf(TypeSyntax?, ExprSyntax?)
  }

  var kind: Kind
  var location: SourceLocation
}

/// One declared variable of a declaration statement: `x = 1`, `a[3] = {…}`.
struct Declarator {
  var name: String
  /// Array length, when `name[N]`; an empty `[]` takes the initializer list's length.
  var arrayLength: ExprSyntax?
  var isArray = false
  var initializer: ExprSyntax?
  /// `sampler s(filter::linear, …)`: constructor arguments.
  var constructorArguments: [ExprSyntax]?
  var location: SourceLocation
}

/// A statement as written.
struct StmtSyntax {
  indirect enum Kind {
    case declaration(TypeSyntax, [Declarator])
    case expression(ExprSyntax)
    case block([StmtSyntax])
    case ifElse(ExprSyntax, StmtSyntax, StmtSyntax?)
    /// `for (initial; condition; step) body`; each part optional.
    case forLoop(StmtSyntax?, ExprSyntax?, ExprSyntax?, StmtSyntax)
    case whileLoop(ExprSyntax, StmtSyntax)
    case doWhile(StmtSyntax, ExprSyntax)
    /// `switch (subject) { case 1: … default: … }`: the sections in source order.
    case switchStatement(ExprSyntax, [SwitchSection])
    case breakStatement
    case continueStatement
    case returnStatement(ExprSyntax?)
    case empty
  }

  var kind: Kind
  var location: SourceLocation
}

/// The labels of one stretch of a `switch` and the statements after them, up
/// to the next label (`case 1: case 2: a(); break;`).
struct SwitchSection {
  /// The `case` values; `nil` stands for `default`.
  var labels: [ExprSyntax?]
  var body: [StmtSyntax]
  var location: SourceLocation
}

/// An explicit argument of a function template: a type, or a value for a
/// non-type parameter (`template <int N>`).
enum TemplateArgument {
  case type(TypeSyntax)
  case value(ExprSyntax)
}

/// A function parameter.
struct ParameterSyntax {
  var type: TypeSyntax
  var name: String
  var arrayLength: ExprSyntax?
  /// `float size = 0.2`: the value a call that leaves the argument out passes.
  var defaultValue: ExprSyntax?
  var location: SourceLocation
}

/// A function definition.
struct FunctionSyntax {
  var name: String
  var returnType: TypeSyntax
  var parameters: [ParameterSyntax]
  var body: [StmtSyntax]
  var isStitchable: Bool
  var location: SourceLocation
  /// `template <typename T>`: the type parameters, deduced at each call
  /// (or given: `f<float>(…)`).
  var templateParameters: [String] = []
  /// `template <int N>`: the value parameters, given at each call (`f<3>(…)`).
  var templateValues: [(name: String, type: TypeSyntax)] = []
  /// Every template parameter's name in declaration order: explicit arguments bind in this order.
  var templateOrder: [String] = []
  /// Why the body did not parse (an unsupported statement, say): calling the function throws it.
  var bodyError: MetalError?
}

/// A struct: its fields in order.
struct StructSyntax {
  typealias Field = (type: TypeSyntax, name: String, arrayLength: ExprSyntax?)
  var name: String
  var fields: [Field]
  var location: SourceLocation
}

/// Everything at file scope.
struct TranslationUnit {
  var functions: [FunctionSyntax] = []
  var structs: [StructSyntax] = []
  /// File-scope `constant`/`constexpr` values, in order.
  var globals: [StmtSyntax] = []
  /// `typedef T name;` and `using name = T;`.
  var aliases: [String: TypeSyntax] = [:]
}
