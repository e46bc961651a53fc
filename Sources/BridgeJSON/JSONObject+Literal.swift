extension JSONObject: ExpressibleByDictionaryLiteral {
    /// A dictionary literal is an object with members in literal order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { Member(key: $0.0, value: $0.1) })
    }
}
