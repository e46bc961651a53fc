import BridgeWebSocket

/// Finds where WebSocket frames start in bytes taken from the middle of a stream
/// (a capture that began mid-connection, or the bytes after a gap).
///
/// The heuristic, scanning candidate offsets from the first byte on:
/// 1. every header of the chain read from the candidate must be plausible: RSV2 and
///    RSV3 clear; opcode text, binary, close, ping or pong for the first frame
///    (continuation also allowed later); RSV1 only on text or binary; control frames
///    final and at most 125 bytes; the length in its shortest encoding (RFC 6455
///    §5.2: every implementation seen writes it); the mask bit the same on every frame
///    and equal to the expected one when the direction's role is known; payload at
///    most ``maxFrameSize``;
/// 2. an uncompressed, final text frame first in the chain must hold valid UTF-8;
/// 3. the candidate is accepted when ``chainLength`` complete frames follow one another,
///    or when the complete frames end exactly at the end of the bytes seen so far (writers
///    start frames at segment boundaries, and the scan runs after every segment);
/// 4. a candidate whose chain is plausible but incomplete makes the scan wait for more
///    bytes, as long as its first frame is at most ``maxWaitFrameSize`` bytes; larger
///    ones are rejected.
/// Unmasked JSON text cannot hold a false header (its bytes are below 0x80 and not
/// control characters), so false starts are only possible inside masked or compressed
/// payloads, where rules 1–3 make them unlikely; a false start later breaks the
/// frame sequence and the decoder resynchronizes again.
struct FrameResynchronizer {
    /// Complete plausible frames in a row that accept a candidate. 3.
    static let chainLength = 3
    /// Largest first frame worth waiting for while resynchronizing. 1 MiB.
    static let maxWaitFrameSize = 1 << 20

    /// Largest payload accepted in any frame.
    var maxFrameSize: Int

    /// The outcome of a scan.
    enum Result: Equatable {
        /// Frames start at `offset`; `masked` is their mask bit.
        case found(offset: Int, masked: Bool)
        /// No start before `offset`; the bytes from there on need more data to decide.
        case needMore(from: Int)
    }

    /// Scans `bytes` from `start`. `masked` is the expected mask bit, nil when unknown.
    func scan(_ bytes: UnsafeRawBufferPointer, from start: Int, masked: Bool?) -> Result {
        var i = start
        while i < bytes.count {
            switch check(bytes, at: i, masked: masked) {
            case .accept(let m): return .found(offset: i, masked: m)
            case .wait: return .needMore(from: i)
            case .reject: i += 1
            }
        }
        return .needMore(from: bytes.count)
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
