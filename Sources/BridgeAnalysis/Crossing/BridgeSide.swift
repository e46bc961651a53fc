import BridgeProtocol

/// Which side of the bridge a two-sided recording's connection was recorded on
/// (docs/FORMAT.md §4): `<id>@web` is what the page posted and received (its JavaScript
/// tap), `<id>@native` what the native host received and sent (its Swift tap). Both keep
/// directions from the web side's point of view (`w2h`, `h2w`).
enum BridgeSide: Sendable, Hashable {
    /// `<id>@web`: the page's view, the one the per-connection rules read.
    case web
    /// `<id>@native`: the native host's view, read only to compare with `@web`.
    case native

    /// The suffix that names the side.
    var suffix: String {
        switch self {
        case .web: return "@web"
        case .native: return "@native"
        }
    }

    /// The side that sends messages of `direction`: the web for `w2h`, the native host for
    /// `h2w` (nil for any other direction).
    static func sender(of direction: Direction) -> BridgeSide? {
        if direction == .webToHost { return .web }
        if direction == .hostToWeb { return .native }
        return nil
    }

    /// The other side.
    var other: BridgeSide { self == .web ? .native : .web }

    /// A connection id split into its base and side: `x@web` is (`x`, web); nil for an id
    /// without either suffix, or with nothing before it (`@web` alone is an ordinary id).
    static func split(_ connection: String) -> (base: String, side: BridgeSide)? {
        // One byte rules out almost every ordinary id before any suffix is compared.
        let last = connection.utf8.last
        if last == UInt8(ascii: "b"), connection.utf8.count > 4, connection.hasSuffix("@web") {
            return (String(connection.utf8.dropLast(4))!, .web)
        }
        if last == UInt8(ascii: "e"), connection.utf8.count > 7, connection.hasSuffix("@native") {
            return (String(connection.utf8.dropLast(7))!, .native)
        }
        return nil
    }

    /// Whether a connection named by these bytes (a record line's `conn`) is a two-sided
    /// recording's `@web` or `@native` side (as ``split(_:)`` would say).
    static func isSided(_ name: UnsafeRawBufferPointer) -> Bool {
        func ends(with suffix: StaticString) -> Bool {
            let n = suffix.utf8CodeUnitCount
            guard name.count > n else { return false }
            let tail = UnsafeRawBufferPointer(rebasing: name[(name.count - n)...])
            return tail.elementsEqual(UnsafeBufferPointer(start: suffix.utf8Start, count: n))
        }
        return ends(with: "@web") || ends(with: "@native")
    }
}
