import BridgeProtocol

/// What decoding one connection's chunks needs besides the connection: where outputs
/// go, the counters, the time of the current packet, the limits.
struct DecodeContext {
    var out: [CaptureOutput]
    var statistics: CaptureStatistics
    var time: Int64
    let limits: CaptureLimits
    /// Scratch arrays kept between packets (taken with `swap`, given back empty-able),
    /// so the per-packet path allocates no arrays of its own.
    var chunks: [StreamChunk] = []
    var events: [WebSocketStreamEvent] = []
}

extension CaptureConnection {
    /// Hands reassembled chunks of direction `d` to the HTTP tracker or WebSocket decoder.
    mutating func consume(_ chunks: [StreamChunk], direction d: Int, _ ctx: inout DecodeContext) {
        for chunk in chunks {
            switch chunk {
            case .data(let bytes): data(bytes, direction: d, &ctx)
            case .gap(let n): gap(n, direction: d, &ctx)
            case .fin: finished[d] = true
            case .reset:
                reset = true
                closeNotes.append("RST from \(role(d))")
            }
        }
    }

    /// Ends decoding (FIN both ways, RST, eviction, end of capture): reports what was
    /// left undecoded and, for an open WebSocket connection, the close event.
    mutating func close(reason: String, _ ctx: inout DecodeContext) {
        for d in 0..<2 {
            var events: [WebSocketStreamEvent] = []
            decoders[d]?.finish(into: &events)
            handle(events, direction: d, &ctx)
        }
        guard let id else { return }
        let why = ([reason] + closeNotes).joined(separator: "; ")
        ctx.out.append(.close(time: ctx.time, connection: id, reason: why))
    }

    func role(_ d: Int) -> String {
        guard let c = clientIndex else { return key.endpoint(d).description }
        return d == c ? "client" : "server"
    }

    /// Hands on the next bytes of direction `d` straight from a packet (the reassembler
    /// took its in-order fast path): into the WebSocket decoder without a copy of
    /// their own, or through ``consume(_:direction:_:)``'s path in any other phase.
    mutating func stream(_ bytes: UnsafeRawBufferPointer, direction d: Int, _ ctx: inout DecodeContext) {
        guard phase == .websocket, decoders[d] != nil else { return data(Array(bytes), direction: d, &ctx) }
        var events: [WebSocketStreamEvent] = []
        swap(&events, &ctx.events)
        events.removeAll(keepingCapacity: true)
        decoders[d]!.receive(bytes, into: &events)
        handle(events, direction: d, &ctx)
        swap(&events, &ctx.events)
    }

    private mutating func data(_ bytes: [UInt8], direction d: Int, _ ctx: inout DecodeContext) {
        switch phase {
        case .ignored:
            return
        case .undecided:
            prelude[d].append(contentsOf: bytes)
            if sawSYN {
                startHTTP(&ctx)
                return
            }
            switch prelude[d].withUnsafeBytes({ HTTPHead.looksLikeHead($0) }) {
            case .some(true): startHTTP(&ctx)
            case .some(false): startWithoutHandshake(&ctx)
            case .none: return
            }
        case .http:
            track(d, bytes, &ctx)
        case .websocket:
            var events: [WebSocketStreamEvent] = []
            swap(&events, &ctx.events)
            events.removeAll(keepingCapacity: true)
            decoders[d]?.receive(bytes, into: &events)
            handle(events, direction: d, &ctx)
            swap(&events, &ctx.events)
        }
    }

    private mutating func gap(_ n: Int, direction d: Int, _ ctx: inout DecodeContext) {
        switch phase {
        case .ignored:
            return
        case .undecided:
            // The start of the stream is lost: decide from what follows, as mid-connection.
            sawSYN = false
            prelude[d] = []
        case .http:
            // Part of the handshake is lost: look for frames without it.
            startWithoutHandshake(&ctx)
            gapInWebSocket(n, d, &ctx)
        case .websocket:
            gapInWebSocket(n, d, &ctx)
        }
    }

    private mutating func gapInWebSocket(_ n: Int, _ d: Int, _ ctx: inout DecodeContext) {
        if let id, clientIndex != nil {
            ctx.out.append(.gap(time: ctx.time, connection: id, direction: direction(d), bytes: n))
            ctx.statistics.gaps += 1
            ctx.statistics.gapBytes += n
        }
        var events: [WebSocketStreamEvent] = []
        decoders[d]?.gap(n, into: &events)
        handle(events, direction: d, &ctx)
    }

    private mutating func startHTTP(_ ctx: inout DecodeContext) {
        phase = .http
        let held = prelude
        prelude = [[], []]
        for d in 0..<2 where !held[d].isEmpty {
            track(d, held[d], &ctx)
        }
    }

    private mutating func track(_ d: Int, _ bytes: [UInt8], _ ctx: inout DecodeContext) {
        guard phase == .http else { return }
        switch http.receive(d, bytes) {
        case .pending:
            return
        case .notWebSocket(let why):
            phase = .ignored
            ignoredBecause = why
            http = HTTPUpgradeTracker()
        case .upgraded(let u):
            phase = .websocket
            http = HTTPUpgradeTracker()
            clientIndex = u.clientDirection
            for i in 0..<2 {
                decoders[i] = WebSocketStreamDecoder(masked: i == u.clientDirection, deflate: u.deflate, limits: ctx.limits)
            }
            open(&ctx)
            for i in 0..<2 where !u.leftovers[i].isEmpty {
                var events: [WebSocketStreamEvent] = []
                decoders[i]?.receive(u.leftovers[i], into: &events)
                handle(events, direction: i, &ctx)
            }
        }
    }

    private mutating func startWithoutHandshake(_ ctx: inout DecodeContext) {
        phase = .websocket
        http = HTTPUpgradeTracker()
        decoders = [WebSocketStreamDecoder(withoutHandshake: ctx.limits), WebSocketStreamDecoder(withoutHandshake: ctx.limits)]
        let held = prelude
        prelude = [[], []]
        for d in 0..<2 where !held[d].isEmpty {
            var events: [WebSocketStreamEvent] = []
            decoders[d]?.receive(held[d], into: &events)
            handle(events, direction: d, &ctx)
        }
    }

    private mutating func open(_ ctx: inout DecodeContext) {
        guard id == nil, let endpoints else { return }
        let name = endpoints.description
        id = name
        ctx.statistics.connections += 1
        ctx.out.append(.open(time: ctx.time, connection: name, endpoints: endpoints))
    }

    private mutating func handle(_ events: [WebSocketStreamEvent], direction d: Int, _ ctx: inout DecodeContext) {
        var revealed = false
        for event in events {
            switch event {
            case .message(let bytes, _):
                guard let id else { continue }
                ctx.out.append(.message(time: ctx.time, direction: direction(d), connection: id, bytes: bytes))
                ctx.statistics.messages += 1
                ctx.statistics.messageBytes += bytes.count
            case .closeFrame(let code, let reason):
                var note = "close frame from \(role(d))"
                if let code { note += " \(code)" }
                if !reason.isEmpty { note += " \"\(reason)\"" }
                closeNotes.append(note)
            case .error(let text):
                report("\(role(d)): \(text)", &ctx)
            case .gaveUp(let n):
                gaveUp[d] = true
                if id == nil && gaveUp[1 - d] {
                    phase = .ignored
                    ignoredBecause = "no WebSocket frames confirmed in the first \(n) bytes without a handshake"
                    decoders = [nil, nil]
                    return
                }
                if id == nil { continue }
                report("\(role(d)): no WebSocket frames confirmed in \(n) bytes; this direction is no longer decoded", &ctx)
            case .synchronized(let skipped, let masked):
                if clientIndex == nil {
                    clientIndex = masked ? d : 1 - d
                    revealed = true
                    open(&ctx)
                } else if masked != (d == clientIndex) {
                    report("\(role(d)): frames are \(masked ? "" : "not ")masked, unlike the \(role(d))'s", &ctx)
                }
                if skipped > 0 { report("\(role(d)): frames found again after \(skipped) undecodable bytes", &ctx) }
            }
        }
        if revealed, let c = clientIndex {
            let other = 1 - d
            decoders[other]?.learnRole(masked: other == c)
            var more: [WebSocketStreamEvent] = []
            decoders[other]?.poke(into: &more)
            handle(more, direction: other, &ctx)
        }
    }

    private func report(_ text: String, _ ctx: inout DecodeContext) {
        guard let id else { return }
        ctx.out.append(.error(time: ctx.time, connection: id, text: text))
        ctx.statistics.errors += 1
    }
}
