import Testing

@Test func placeholderFXImageTests() { #expect(Bool(true)) }
