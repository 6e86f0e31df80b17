import Testing

@Test func placeholderFXCodegenTests() { #expect(Bool(true)) }
