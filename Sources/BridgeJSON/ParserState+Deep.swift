extension ParserState {
    /// Reads one value starting at `i`, nested `depth` levels down, without recursion:
    /// open arrays and objects live on an explicit stack (``OpenContainer``), so nesting
    /// costs heap, never call stack. The recursive descent (faster on the shallow
    /// envelopes of real traffic: no stack array to allocate) hands over to this below
    /// ``ParserState/recursionDepth``; recursion all the way down took 4.7 KB of stack per
    /// level in a debug build, and 1,000 levels overflowed a concurrency-pool thread in CI.
    mutating func parseValueIteratively(depth base: Int) throws(JSONError) -> JSONValue {
        var stack: [OpenContainer] = []
        while true {
            // 1. A value starts at `i`: a scalar is read whole; a non-empty container is
            //    pushed and the loop comes back here for its first element.
            var value: JSONValue
            guard i < b.count else { throw fail(.unexpectedEnd, at: i, "input ended where a value was expected") }
            switch b[i] {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                let open = i
                let isObject = b[i] == UInt8(ascii: "{")
                try checkDepth(base + stack.count + 1, open: open)
                i += 1
                skipWhitespace()
                if i < b.count && b[i] == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    i += 1
                    value = isObject ? .object(JSONObject([])) : .array([])
                } else {
                    var container = isObject ? OpenContainer(object: open) : OpenContainer(array: open)
                    if isObject { try readMemberKey(into: &container) }
                    stack.append(container)
                    continue
                }
            case UInt8(ascii: "\""): value = .string(try parseString())
            case UInt8(ascii: "t"): try literal("true"); value = .bool(true)
            case UInt8(ascii: "f"): try literal("false"); value = .bool(false)
            case UInt8(ascii: "n"): try literal("null"); value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try parseNumber())
            default:
                throw fail(.unexpectedByte, at: i, "unexpected \(describe(b[i])): expected a value (object, array, string, number, true, false or null)\(hint(at: i))")
            }
            // 2. A value is complete: it goes into the innermost open container; a
            //    container that ends here is itself complete and goes one level up.
            attach: while true {
                guard !stack.isEmpty else { return value }
                let top = stack.count - 1
                let open = stack[top].open
                if stack[top].isObject {
                    let member = JSONObject.Member(key: stack[top].key, value: value,
                                                   keyOffset: stack[top].keyOffset, valueOffset: stack[top].valueOffset)
                    stack[top].members.append(member)
                    guard stack[top].members.count <= limits.maxMembers else {
                        throw fail(.tooManyMembers, at: open, "object has more than \(limits.maxMembers) members")
                    }
                    let c = try separator(in: "object", opened: open)
                    if c == UInt8(ascii: ",") {
                        try readMemberKey(into: &stack[top])
                        break attach
                    }
                    guard c == UInt8(ascii: "}") else {
                        throw fail(.unexpectedByte, at: i - 1, "unexpected \(describe(c)): expected ',' or '}' in the object opened at byte \(open)")
                    }
                    let done = stack.removeLast()
                    if done.members.count > 1 { findDuplicates(done.members, depth: base + stack.count + 1) }
                    value = .object(JSONObject(done.members))
                } else {
                    stack[top].elements.append(value)
                    guard stack[top].elements.count <= limits.maxMembers else {
                        throw fail(.tooManyMembers, at: open, "array has more than \(limits.maxMembers) elements")
                    }
                    let c = try separator(in: "array", opened: open)
                    if c == UInt8(ascii: ",") {
                        skipWhitespace()
                        if i < b.count && b[i] == UInt8(ascii: "]") {
                            throw fail(.unexpectedByte, at: i, "trailing comma before ']' (array opened at byte \(open))")
                        }
                        break attach
                    }
                    guard c == UInt8(ascii: "]") else {
                        throw fail(.unexpectedByte, at: i - 1, "unexpected \(describe(c)): expected ',' or ']' in the array opened at byte \(open)")
                    }
                    value = .array(stack.removeLast().elements)
                }
            }
        }
    }

    /// Throws `tooDeep` when a container opened at `open` would be at `depth`.
    func checkDepth(_ depth: Int, open: Int) throws(JSONError) {
        guard depth <= limits.maxDepth else {
            throw fail(.tooDeep, at: open, "nesting deeper than the limit of \(limits.maxDepth) levels")
        }
    }

    /// After a container's element: skips whitespace and consumes the next byte (`,` or
    /// the closing bracket, checked by the caller).
    mutating func separator(in kind: StaticString, opened open: Int) throws(JSONError) -> UInt8 {
        skipWhitespace()
        guard i < b.count else {
            throw fail(.unexpectedEnd, at: i, "input ended inside the \(kind) opened at byte \(open)")
        }
        i += 1
        return b[i - 1]
    }

    /// Reads `"key":` and the whitespace after it, leaving `i` at the member's value.
    mutating func readMemberKey(into container: inout OpenContainer) throws(JSONError) {
        let (key, keyOffset) = try memberKey(inObjectOpenedAt: container.open)
        container.key = key
        container.keyOffset = keyOffset
        container.valueOffset = i
    }
}
