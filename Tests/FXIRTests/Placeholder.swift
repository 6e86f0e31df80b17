import Testing

@Test func placeholderFXIRTests() { #expect(Bool(true)) }
