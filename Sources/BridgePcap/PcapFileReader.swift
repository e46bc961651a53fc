import BridgeCapture
import CPcap

/// Reads a pcap or pcapng file through libpcap (`pcap_open_offline`, nanosecond time
/// stamps). A thin driver: decoding is ``CaptureDecoder``'s job.
///
/// Not `Sendable`: it owns a `pcap_t`; use it from one thread.
public final class PcapFileReader {
    /// The file being read.
    public let path: String
    /// The file's link type.
    public let linkType: LinkType
    private var handle: OpaquePointer?
    private var count = 0

    /// Opens `path`; throws ``CaptureError`` naming the file and what libpcap said.
    public init(path: String) throws(CaptureError) {
        self.path = path
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let h = pcap_open_offline_with_tstamp_precision(path, UInt32(PCAP_TSTAMP_PRECISION_NANO), &errbuf) else {
            let why = String(decoding: errbuf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CaptureError(.openFile, "cannot read capture file \(path): \(why) (is it a pcap or pcapng file?)")
        }
        handle = h
        linkType = LinkType(rawValue: pcap_datalink(h))
    }

    deinit {
        if let handle { pcap_close(handle) }
    }

    /// Packets returned so far.
    var packetsRead: Int { count }

    /// Calls `body` with the next packet and returns its result, or nil at the end of the
    /// file. A damaged or truncated file throws with the packet number where it broke.
    public func next<R>(_ body: (CapturedPacket) throws -> R) throws -> R? {
        guard let handle else { return nil }
        var header: UnsafeMutablePointer<pcap_pkthdr>?
        var data: UnsafePointer<UInt8>?
        let rc = pcap_next_ex(handle, &header, &data)
        switch rc {
        case 1:
            guard let header, let data else { return nil }
            count += 1
            let h = header.pointee
            let time = Int64(h.ts.tv_sec) &* 1_000_000_000 &+ Int64(h.ts.tv_usec)
            let bytes = UnsafeRawBufferPointer(start: data, count: Int(h.caplen))
            return try body(CapturedPacket(time: time, linkType: linkType, bytes: bytes, originalLength: Int(h.len), number: count))
        case -2:
            return nil
        default:
            let why = String(cString: pcap_geterr(handle))
            throw CaptureError(.readFile, "capture file \(path) is damaged after packet \(count): \(why)")
        }
    }
}
