/// The permessage-deflate parameters both sides agreed on (RFC 7692 §7.1).
public struct DeflateAgreement: Sendable, Hashable {
    /// The server resets its compressor after every message.
    public var serverNoContextTakeover: Bool
    /// The client resets its compressor after every message (its inflater may too).
    public var clientNoContextTakeover: Bool
    /// The server's LZ77 window, 9–15 bits.
    public var serverMaxWindowBits: Int
    /// The client's LZ77 window, 8–15 bits (what the server's inflater must accept).
    public var clientMaxWindowBits: Int

    /// Creates an agreement (what a client would accept, or a test's fixed parameters).
    public init(serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
                serverMaxWindowBits: Int = 15, clientMaxWindowBits: Int = 15) {
        self.serverNoContextTakeover = serverNoContextTakeover
        self.clientNoContextTakeover = clientNoContextTakeover
        self.serverMaxWindowBits = serverMaxWindowBits
        self.clientMaxWindowBits = clientMaxWindowBits
    }

    /// The `Sec-WebSocket-Extensions` value a server answers with.
    public var responseHeader: String {
        var parts = ["permessage-deflate"]
        if serverNoContextTakeover { parts.append("server_no_context_takeover") }
        if clientNoContextTakeover { parts.append("client_no_context_takeover") }
        if serverMaxWindowBits < 15 { parts.append("server_max_window_bits=\(serverMaxWindowBits)") }
        return parts.joined(separator: "; ")
    }

    /// Chooses the first acceptable `permessage-deflate` offer in a client's
    /// `Sec-WebSocket-Extensions` header, or nil when there is none. `forceServerNoContextTakeover`
    /// makes the server reset its compressor per message even if the client did not ask.
    public static func negotiate(offerHeader: String, forceServerNoContextTakeover: Bool = false) -> DeflateAgreement? {
        for offer in offerHeader.split(separator: ",") {
            let params = offer.split(separator: ";").map { $0.trimmingCharacters(in: " \t") }
            guard params.first == "permessage-deflate" else { continue }
            var agreement = DeflateAgreement(serverNoContextTakeover: forceServerNoContextTakeover,
                                             clientNoContextTakeover: false, serverMaxWindowBits: 15, clientMaxWindowBits: 15)
            var acceptable = true
            var seen = Set<String>()
            for p in params.dropFirst() {
                let kv = p.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: " \t\"") }
                let name = kv[0]
                if !seen.insert(name).inserted { acceptable = false; break }  // §7: duplicate parameter
                let value = kv.count > 1 ? Int(kv[1]) : nil
                switch name {
                case "server_no_context_takeover": agreement.serverNoContextTakeover = true
                case "client_no_context_takeover": agreement.clientNoContextTakeover = true
                case "server_max_window_bits":
                    // zlib cannot deflate with an 8-bit window: decline such offers.
                    guard let v = value, (9...15).contains(v) else { acceptable = false; break }
                    agreement.serverMaxWindowBits = v
                case "client_max_window_bits":
                    if kv.count > 1 {
                        guard let v = value, (8...15).contains(v) else { acceptable = false; break }
                        agreement.clientMaxWindowBits = v
                    }
                default:
                    acceptable = false
                }
            }
            if acceptable { return agreement }
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        let chars = Set(set)
        var s = Substring(self)
        while let f = s.first, chars.contains(f) { s = s.dropFirst() }
        while let l = s.last, chars.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: String) -> String {
        String(self).trimmingCharacters(in: set)
    }
}
