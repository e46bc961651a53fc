extension RuleID {
    /// A message sent across the bridge never reached the other side (two-sided recordings).
    public static let bridgeNotDelivered = RuleID(rawValue: "BRG300")
    /// Members were dropped or changed as a message crossed the bridge.
    public static let bridgeMemberChanged = RuleID(rawValue: "BRG301")
    /// One side received a message the other side never sent.
    public static let bridgeUnpostedReceipt = RuleID(rawValue: "BRG302")
    /// Part of a two-sided recording could not be compared.
    public static let bridgeCrossingIncomplete = RuleID(rawValue: "BRG303")
}

extension RuleCatalogue {
    /// Bridge crossing rules (BRG300–BRG309), checked by the analyzer on two-sided
    /// recordings: a connection recorded as `<id>@web` (the page's tap) and `<id>@native`
    /// (the native host's tap), docs/FORMAT.md §4 and docs/ANALYZER.md.
    public static let crossingRules: [Rule] = [
        Rule(id: .bridgeNotDelivered, slug: "bridge-not-delivered", severity: .error,
             summary: "A message the page posted never reached the native host (or one the host sent never reached the page).",
             explanation: "The @web side of the recording holds the post and the @native side has no receipt of it (same correlationId, type and action). When the page's tap noted why (a crossing event: WebKit does not deliver a posted value that holds a function, a symbol or a DOM node), the finding says it. Check the member named and post plain JSON values only (strings, finite numbers, booleans, null, arrays and objects of them); with no reason given, check the message handler the page posts to and whether the recording lost data near it (capture-gap).",
             source: "project rule (two-sided recordings; WebKit's WKScriptMessage conversion)"),
        Rule(id: .bridgeMemberChanged, slug: "bridge-member-changed", severity: .warning,
             summary: "Members of a message were dropped or changed as it crossed the bridge.",
             explanation: "The message arrived, but not as it was sent: the page's tap noted what WebKit's conversion dropped or changed (a BigInt or undefined member dropped, a Date sent as an empty object), or the @web and @native records differ as JSON values (key order alone never counts; numbers compare by value). Check each member named: send it as a string or a plain number the other side can read, and keep integers within 2^53.",
             source: "project rule (two-sided recordings)"),
        Rule(id: .bridgeUnpostedReceipt, slug: "bridge-unposted-receipt", severity: .warning,
             summary: "The native host received a message the page never posted (or the page received one the host never sent).",
             explanation: "The @native side holds a receipt with no post of the same correlationId, type and action on the @web side. Check whether another script or frame of the page posts to the same handler, whether the page's tap was installed after the page's first post, and whether the recording lost data there (capture-gap).",
             source: "project rule (two-sided recordings)"),
        Rule(id: .bridgeCrossingIncomplete, slug: "bridge-crossing-incomplete", severity: .warning,
             summary: "Part of a two-sided recording could not be compared across the bridge.",
             explanation: "Either more messages waited for their twin on the other side than the analyzer keeps (docs/ANALYZER.md, the crossing limits), so from the record named on nothing of that connection is paired and nothing unpaired is judged; or a @native connection has no @web twin, so it is not analysed at all (the per-connection rules read the @web side). Check that both taps record the same connection id, and that the recording is one session.",
             source: "project rule (two-sided recordings)"),
    ]
}
