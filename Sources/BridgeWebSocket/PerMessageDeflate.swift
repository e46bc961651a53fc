import CompressNIO
import NIOCore

/// Why a permessage-deflate payload could not be inflated or deflated.
public struct DeflateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The inflated message would exceed the limit.
        case tooLarge
        /// The compressed data is corrupt.
        case corrupt
        /// zlib failed otherwise.
        case zlib
        /// The message inflates more than the allowed ratio (a deflate bomb).
        case tooCompressed
    }
    /// What went wrong.
    public var kind: Kind
    /// A sentence for logs.
    public var description: String
}

/// The RFC 7692 codec of one connection: inflates received messages and deflates sent
/// ones, keeping the LZ77 context across messages unless "no context takeover" was agreed.
///
/// Not `Sendable`: it holds zlib streams; use it from one connection's event loop.
public final class PerMessageDeflate {
    /// The negotiated parameters.
    public let agreement: DeflateAgreement
    /// Largest inflated message accepted, in bytes; checked while inflating, so a
    /// deflate bomb costs at most this much memory.
    public let maxMessageBytes: Int
    /// Whether this side is the server (decides which direction's parameters apply).
    public let isServer: Bool
    private let inflater: ZlibDecompressor
    private let deflater: ZlibCompressor
    private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

    /// Creates the codec for one connection.
    public init(agreement: DeflateAgreement, maxMessageBytes: Int, isServer: Bool = true) throws {
        self.agreement = agreement
        self.maxMessageBytes = maxMessageBytes
        self.isServer = isServer
        let outBits = isServer ? agreement.serverMaxWindowBits : max(9, agreement.clientMaxWindowBits)
        self.inflater = try ZlibDecompressor(algorithm: .deflate, windowSize: 15)
        self.deflater = try ZlibCompressor(algorithm: .deflate,
                                           configuration: ZlibConfiguration(windowSize: Int32(outBits), compressionLevel: 6))
    }

    /// Inflates one received message (RFC 7692 §7.2.2: append 00 00 FF FF, inflate).
    public func inflate(_ payload: [UInt8]) throws(DeflateError) -> [UInt8] {
        var job = beginInflating(payload)
        while true {
            if let message = try continueInflating(&job, slice: Int.max) { return message }
        }
    }

    /// Starts inflating one received message, to be continued in slices with
    /// ``continueInflating(_:slice:maxRatio:)`` (a large message then never holds the
    /// event loop for more than one slice). Messages must be inflated one at a time, in order.
    public func beginInflating(_ payload: [UInt8]) -> Inflation {
        var input = ByteBuffer(bytes: payload)
        input.writeBytes(Self.tail)
        var output = ByteBuffer()
        output.reserveCapacity(min(max(payload.count * 4, 256), maxMessageBytes + 1))
        return Inflation(input: input, output: output, compressedBytes: payload.count)
    }

    /// Inflates about `slice` more bytes of `job`: the message when it is complete, nil
    /// when more slices are needed. `maxRatio` refuses a message of more than 1 MiB whose
    /// inflated size exceeds that multiple of its compressed size (``DeflateError/Kind/tooCompressed``).
    public func continueInflating(_ job: inout Inflation, slice: Int, maxRatio: Int? = nil) throws(DeflateError) -> [UInt8]? {
        let sliceEnd = job.output.readableBytes > Int.max - slice ? Int.max : job.output.readableBytes + slice
        while true {
            if job.output.readableBytes >= sliceEnd { return nil }
            let before = (job.input.readableBytes, job.output.readableBytes)
            // Small messages inflate straight into `output`; once it is full, through a
            // scratch buffer of at most one slice, so one call never writes more than that
            // (ByteBuffer grows by doubling: its free space would make slices double too).
            let direct = !job.scratching
            var overflow = false
            do {
                if direct {
                    try inflater.inflate(from: &job.input, to: &job.output)
                } else {
                    job.scratch.clear()
                    defer { job.output.writeBuffer(&job.scratch) }
                    try inflater.inflate(from: &job.input, to: &job.scratch)
                }
            } catch let e as CompressNIOError where e == .bufferOverflow {
                overflow = true
                if direct {
                    job.scratching = true
                    job.scratch.reserveCapacity(min(max(slice, 4096), 256 << 10))
                }
            } catch let e as CompressNIOError where e == .inputBufferOverflow {
                break
            } catch let e as CompressNIOError where e == .corruptData {
                throw DeflateError(kind: .corrupt, description: "compressed message is corrupt")
            } catch {
                throw DeflateError(kind: .zlib, description: "inflate failed: \(error)")
            }
            if job.output.readableBytes > maxMessageBytes {
                throw DeflateError(kind: .tooLarge, description: "inflated message over the limit of \(maxMessageBytes) bytes")
            }
            if let maxRatio, job.output.readableBytes > 1 << 20,
               job.output.readableBytes / max(1, job.compressedBytes) > maxRatio {
                throw DeflateError(kind: .tooCompressed,
                                   description: "message inflates more than \(maxRatio) times its compressed size of \(job.compressedBytes) bytes")
            }
            if overflow { continue }
            if job.input.readableBytes == 0 { break }
            if before == (job.input.readableBytes, job.output.readableBytes) {
                // No progress with input left: the sender ended the DEFLATE stream
                // (a BFINAL block, allowed by RFC 7692 §7.2.3.3). Only our own
                // 00 00 FF FF tail may follow it.
                job.finalBlock = true
                if job.input.readableBytes > Self.tail.count {
                    throw DeflateError(kind: .corrupt, description: "data after the final DEFLATE block")
                }
                break
            }
        }
        if job.output.readableBytes > maxMessageBytes {
            throw DeflateError(kind: .tooLarge, description: "inflated message over the limit of \(maxMessageBytes) bytes")
        }
        let peerResets = isServer ? agreement.clientNoContextTakeover : agreement.serverNoContextTakeover
        // After a final block the stream is over: the next message starts a new one.
        if peerResets || job.finalBlock { try? inflater.reset() }
        return job.output.readBytes(length: job.output.readableBytes) ?? []
    }

    /// Starts deflating one message to send, to be continued in slices with
    /// ``continueDeflating(_:slice:)`` (deflating 16 MiB at level 6 takes a few hundred
    /// milliseconds: in slices, other connections on the loop get their turn). Messages must
    /// be deflated one at a time, in order.
    public func beginDeflating(_ message: [UInt8]) -> Deflation {
        let input = ByteBuffer(bytes: message)
        var output = ByteBuffer()
        output.reserveCapacity(deflater.maxSize(from: input) + 64)
        return Deflation(input: input, output: output)
    }

    /// Deflates about `slice` more input bytes of `job`: the frame payload (sync flush,
    /// trailing 00 00 FF FF removed) once the whole message is in, nil before.
    public func continueDeflating(_ job: inout Deflation, slice: Int) throws(DeflateError) -> [UInt8]? {
        let count = min(max(slice, 1), job.input.readableBytes)
        let last = count == job.input.readableBytes
        var chunk = job.input.readSlice(length: count)!
        while true {
            do {
                try deflater.deflate(from: &chunk, to: &job.output, flush: last ? .sync : .no)
                // Without a flush zlib may keep output pending: only the last slice must drain it.
                if chunk.readableBytes == 0 && (!last || job.output.writableBytes > 0) { break }
                job.output.reserveCapacity(job.output.capacity * 2)
            } catch let e as CompressNIOError where e == .bufferOverflow {
                // Z_BUF_ERROR with no input and room left: nothing to flush (an empty message
                // right after another sync flush). Growing would loop until the size overflows.
                if chunk.readableBytes == 0 && (!last || job.output.writableBytes > 0) { break }
                job.output.reserveCapacity(job.output.capacity * 2)
            } catch {
                throw DeflateError(kind: .zlib, description: "deflate failed: \(error)")
            }
        }
        guard last else { return nil }
        var bytes = job.output.readBytes(length: job.output.readableBytes) ?? []
        if bytes.count >= 4 && Array(bytes.suffix(4)) == Self.tail { bytes.removeLast(4) }
        // Nothing was pending: an empty stored block stands for the empty message.
        if bytes.isEmpty { bytes = [0x00] }
        let resets = isServer ? agreement.serverNoContextTakeover : agreement.clientNoContextTakeover
        if resets { try? deflater.reset() }
        return bytes
    }

    /// Deflates one message to send (sync flush, trailing 00 00 FF FF removed).
    public func deflate(_ message: [UInt8]) throws(DeflateError) -> [UInt8] {
        var job = beginDeflating(message)
        return try continueDeflating(&job, slice: Int.max)!
    }
}

/// A message being inflated by ``PerMessageDeflate/continueInflating(_:slice:maxRatio:)``.
public struct Inflation {
    fileprivate var input: ByteBuffer
    fileprivate var output: ByteBuffer
    /// Size of the compressed payload.
    public let compressedBytes: Int
    fileprivate var finalBlock = false
    fileprivate var scratching = false
    fileprivate var scratch = ByteBuffer()

    fileprivate init(input: ByteBuffer, output: ByteBuffer, compressedBytes: Int) {
        self.input = input
        self.output = output
        self.compressedBytes = compressedBytes
    }

    /// Bytes held for the output so far (its buffer's capacity).
    public var heldBytes: Int { output.capacity + input.capacity + scratch.capacity }
    /// Bytes inflated so far.
    public var inflatedBytes: Int { output.readableBytes }
}

/// A message being deflated by ``PerMessageDeflate/continueDeflating(_:slice:)``.
public struct Deflation {
    fileprivate var input: ByteBuffer
    fileprivate var output: ByteBuffer

    fileprivate init(input: ByteBuffer, output: ByteBuffer) {
        self.input = input
        self.output = output
    }

    /// Bytes held (input and output buffers).
    public var heldBytes: Int { input.capacity + output.capacity }
}
