import Testing

@Test func placeholderCLITests() { #expect(Bool(true)) }
