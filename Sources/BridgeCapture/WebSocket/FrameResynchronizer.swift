import BridgeWebSocket

/// Finds where WebSocket frames start in bytes taken from the middle of a stream (a
/// capture that began mid-connection, or the bytes after a gap). A value type fed
/// bytes: ``append(_:)``, then ``find(masked:lookAhead:)`` until it returns nil.
///
/// The heuristic, for each candidate offset from the first byte on:
/// 1. every header of the chain read from the candidate must be plausible: RSV2 and
///    RSV3 clear; opcode text, binary, close, ping or pong for the first frame
///    (continuation also allowed later); RSV1 only on text or binary; control frames
///    final and at most 125 bytes (a close frame not 1 byte); the length in its shortest
///    encoding (RFC 6455 §5.2; every implementation seen writes it); the mask bit the
///    same on every frame and equal to the expected one when the direction's role is
///    known; payload at most the frame limit;
/// 2. an uncompressed, final text frame first in the chain must hold valid UTF-8;
/// 3. the candidate is accepted when ``chainLength`` complete frames follow one another,
///    or when its complete frames end exactly at the end of the bytes seen so far
///    (writers start frames at segment boundaries, and the scan runs after every segment);
/// 4. a candidate whose chain is plausible but incomplete waits for more bytes, if its
///    first frame is at most ``maxWaitFrameSize`` bytes (otherwise it is rejected).
///
/// Without look-ahead the first waiting candidate stops the scan: it is preferred to
/// anything after it (used after a gap on a known WebSocket connection, where a real
/// frame in progress must not be cut by a false start inside its payload). With
/// look-ahead (a connection on probation, where a false start costs nothing because the
/// first message is checked) a later accepted candidate wins over waiting ones, so a
/// false candidate announcing a long frame cannot hold back the real frames after it.
/// At most ``maxWaiting`` candidates wait at once.
///
/// Unmasked JSON text cannot hold a false header (its bytes are below 0x80 and not
/// control characters), so false starts are only possible inside masked or compressed
/// payloads and other protocols, where rules 1–3 make them unlikely.
struct FrameResynchronizer {
    /// Complete plausible frames in a row that accept a candidate. 3.
    static let chainLength = 3
    /// Largest first frame worth waiting for. 1 MiB.
    static let maxWaitFrameSize = 1 << 20
    /// Most candidates waiting for more bytes at once. 16.
    static let maxWaiting = 16

    /// Largest payload accepted in any frame.
    let maxFrameSize: Int
    /// Most bytes held; past it the oldest half is dropped.
    let maxBufferBytes: Int
    private(set) var buffer: [UInt8] = []
    private var waiting: [Int] = []
    private var scannedTo = 0
    /// Bytes dropped from the front since the last find: never frames.
    private(set) var dropped = 0

    /// Where frames were found.
    struct Found {
        /// Bytes passed over before the frames (dropped earlier plus the offset).
        var skipped: Int
        /// The frames' mask bit.
        var masked: Bool
        /// The bytes from the first frame on.
        var bytes: [UInt8]
    }

    init(maxFrameSize: Int, maxBufferBytes: Int) {
        self.maxFrameSize = maxFrameSize
        self.maxBufferBytes = maxBufferBytes
    }

    /// Bytes held (not yet passed over).
    var heldCount: Int { buffer.count }

    /// Appends stream bytes.
    mutating func append<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        buffer.append(contentsOf: bytes)
    }

    /// Starts over with `bytes`, the scan beginning at `from`.
    mutating func reset(_ bytes: [UInt8] = [], from: Int = 0) {
        buffer = bytes
        waiting = []
        scannedTo = min(from, bytes.count)
        dropped = 0
    }

    /// Looks for frames. `masked` is the expected mask bit (nil when unknown).
    mutating func find(masked: Bool?, lookAhead: Bool) -> Found? {
        let result: (Int, Bool)? = buffer.withUnsafeBytes { raw in
            var stillWaiting: [Int] = []
            for w in waiting {
                switch check(raw, at: w, masked: masked) {
                case .accept(let m):
                    if lookAhead || stillWaiting.isEmpty { return (w, m) }
                    stillWaiting.append(w)
                case .wait: stillWaiting.append(w)
                case .reject: break
                }
            }
            waiting = stillWaiting
            var i = scannedTo
            defer { scannedTo = i }
            while i < raw.count {
                switch check(raw, at: i, masked: masked) {
                case .accept(let m):
                    if lookAhead || waiting.isEmpty { return (i, m) }
                    waiting.append(i)
                case .wait:
                    waiting.append(i)
                    if !lookAhead {
                        i += 1
                        return nil
                    }
                case .reject:
                    break
                }
                if waiting.count > Self.maxWaiting { waiting.removeFirst() }
                i += 1
            }
            return nil
        }
        if let (offset, m) = result {
            let found = Found(skipped: dropped + offset, masked: m, bytes: Array(buffer[offset...]))
            reset()
            return found
        }
        trim()
        return nil
    }

    /// Drops bytes that can no longer start frames, and the oldest half past the bound.
    private mutating func trim() {
        var cut = min(waiting.first ?? scannedTo, scannedTo)
        if cut < 4096 { cut = 0 }
        if buffer.count > maxBufferBytes { cut = max(cut, buffer.count / 2) }
        guard cut > 0 else { return }
        buffer.removeFirst(cut)
        dropped += cut
        scannedTo = max(0, scannedTo - cut)
        waiting = waiting.filter { $0 >= cut }.map { $0 - cut }
    }

    private enum Verdict { case accept(Bool), wait, reject }

    private func check(_ bytes: UnsafeRawBufferPointer, at start: Int, masked expected: Bool?) -> Verdict {
        var offset = start
        var frames = 0
        var mask = expected
        while frames < Self.chainLength {
            if offset == bytes.count {
                return frames > 0 ? .accept(mask ?? false) : .wait
            }
            let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
            switch WebSocketFrameHeader.peek(rest) {
            case .needMore:
                return .wait
            case .invalidLength:
                return .reject
            case .header(let h):
                guard plausible(h, first: frames == 0), mask == nil || mask == h.bits.masked else { return .reject }
                mask = h.bits.masked
                if frames == 0 && h.frameLength > Self.maxWaitFrameSize && rest.count < h.frameLength { return .reject }
                guard rest.count >= h.frameLength else { return .wait }
                if frames == 0 && h.bits.opcode == .text && h.bits.fin && !h.bits.rsv1 {
                    guard validUTF8(rest, header: h) else { return .reject }
                }
                offset += h.frameLength
                frames += 1
            }
        }
        return .accept(mask ?? false)
    }

    private func plausible(_ h: WebSocketFrameHeader, first: Bool) -> Bool {
        let b = h.bits
        if b.rsv2 || b.rsv3 || !h.minimalLength || h.payloadLength > maxFrameSize { return false }
        switch b.opcode {
        case .text, .binary: return true
        case .continuation: return !first && !b.rsv1
        case .close, .ping, .pong: return b.fin && !b.rsv1 && h.payloadLength <= 125 && (b.opcode != .close || h.payloadLength != 1)
        default: return false
        }
    }

    private func validUTF8(_ rest: UnsafeRawBufferPointer, header h: WebSocketFrameHeader) -> Bool {
        var payload = Array(rest[h.headerLength..<h.frameLength])
        if h.bits.masked { payload.withUnsafeMutableBytes { WebSocketFrameHeader.unmask($0, key: h.maskKey) } }
        return String(validating: payload, as: UTF8.self) != nil
    }
}
