import Testing

@Test func placeholderFXTests() { #expect(Bool(true)) }
