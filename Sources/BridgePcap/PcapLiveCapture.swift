import BridgeCapture
import CPcap

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A live capture through libpcap: `pcap_create`, block timeout (or immediate mode, see
/// ``LiveCaptureOptions/immediate``), buffer size, snapshot length, nanosecond time stamps where supported, a compiled BPF filter, and
/// non-blocking reads with `poll` on the selectable descriptor, so that waiting on an
/// idle interface never blocks shutdown (a blocking `pcap_next_ex` can wait forever).
///
/// Not `Sendable`: it owns a `pcap_t`; use it from one thread.
public final class PcapLiveCapture {
    /// The options it was opened with.
    public let options: LiveCaptureOptions
    /// The interface's link type.
    public let linkType: LinkType
    private let handle: OpaquePointer
    private let selectableFD: Int32
    private let nanoseconds: Bool
    private var count = 0

    /// Opens and activates the capture; throws ``CaptureError`` naming the interface and
    /// what to do (permissions, unknown interface, bad filter).
    public init(options: LiveCaptureOptions) throws(CaptureError) {
        self.options = options
        let name = options.interface
        var errbuf = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let h = pcap_create(name, &errbuf) else {
            throw CaptureError(.live, "cannot capture on \(name): \(Self.text(errbuf))")
        }
        pcap_set_snaplen(h, options.snapshotLength)
        pcap_set_promisc(h, options.promiscuous ? 1 : 0)
        if options.immediate {
            pcap_set_immediate_mode(h, 1)
        } else {
            pcap_set_timeout(h, max(1, options.bufferTimeout))
        }
        pcap_set_buffer_size(h, options.bufferSize)
        nanoseconds = pcap_set_tstamp_precision(h, Int32(PCAP_TSTAMP_PRECISION_NANO)) == 0
        let rc = pcap_activate(h)
        if rc < 0 {
            let detail = String(cString: pcap_geterr(h))
            pcap_close(h)
            throw Self.activationError(rc, interface: name, detail: detail)
        }
        handle = h
        linkType = LinkType(rawValue: pcap_datalink(h))
        if let filter = options.filter {
            var program = bpf_program()
            if pcap_compile(h, &program, filter, 1, PCAP_NETMASK_UNKNOWN) != 0 {
                let why = String(cString: pcap_geterr(h))
                pcap_close(h)
                throw CaptureError(.filter, "BPF filter \"\(filter)\" does not compile on \(name): \(why)")
            }
            defer { pcap_freecode(&program) }
            if pcap_setfilter(h, &program) != 0 {
                let why = String(cString: pcap_geterr(h))
                pcap_close(h)
                throw CaptureError(.filter, "cannot set BPF filter \"\(filter)\" on \(name): \(why)")
            }
        }
        if pcap_setnonblock(h, 1, &errbuf) != 0 {
            pcap_close(h)
            throw CaptureError(.live, "cannot make the capture on \(name) non-blocking: \(Self.text(errbuf))")
        }
        selectableFD = pcap_get_selectable_fd(h)
        if selectableFD < 0 {
            pcap_close(h)
            throw CaptureError(.live, "interface \(name) offers no descriptor to wait on; live capture is not supported here")
        }
    }

    deinit {
        pcap_close(handle)
    }

    /// Packets handed out so far.
    var packetsRead: Int { count }

    /// Waits up to `milliseconds` for packets; true when some may be ready. Returns
    /// early on a signal (EINTR), so the caller can check its stop conditions.
    public func wait(milliseconds: Int32) -> Bool {
        var pfd = pollfd(fd: selectableFD, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, milliseconds) > 0
    }

    /// Calls `body` for every packet ready now, up to `limit`; returns how many. Never
    /// blocks.
    func readAvailable(limit: Int = 10_000, _ body: (CapturedPacket) throws -> Void) throws -> Int {
        var n = 0
        while n < limit {
            var header: UnsafeMutablePointer<pcap_pkthdr>?
            var data: UnsafePointer<UInt8>?
            let rc = pcap_next_ex(handle, &header, &data)
            if rc == 0 { break }
            if rc < 0 {
                throw CaptureError(.live, "capture on \(options.interface) failed: \(String(cString: pcap_geterr(handle)))")
            }
            guard let header, let data else { break }
            count += 1
            n += 1
            let h = header.pointee
            let fraction = Int64(h.ts.tv_usec) &* (nanoseconds ? 1 : 1000)
            let time = Int64(h.ts.tv_sec) &* 1_000_000_000 &+ fraction
            try body(CapturedPacket(time: time, linkType: linkType, bytes: UnsafeRawBufferPointer(start: data, count: Int(h.caplen)),
                                    originalLength: Int(h.len), number: count))
        }
        return n
    }

    /// libpcap's counters, nil when the platform does not keep them.
    public func counters() -> LiveCaptureCounters? {
        var s = pcap_stat()
        guard pcap_stats(handle, &s) == 0 else { return nil }
        return LiveCaptureCounters(received: Int(s.ps_recv), dropped: Int(s.ps_drop), interfaceDropped: Int(s.ps_ifdrop))
    }

    /// The error a failed `pcap_activate` with status `rc` gives (test hook).
    @_spi(Testing)
    public static func activationErrorForTesting(_ rc: Int32, _ interface: String) -> CaptureError {
        activationError(rc, interface: interface, detail: "")
    }

    static func activationError(_ rc: Int32, interface name: String, detail: String) -> CaptureError {
        let said = detail.isEmpty ? String(cString: pcap_statustostr(rc)) : detail
        switch rc {
        case PCAP_ERROR_PERM_DENIED, PCAP_ERROR_PROMISC_PERM_DENIED:
            return CaptureError(.permission, "no permission to capture on \(name) (\(said)): run as root, or give the binary "
                + "CAP_NET_RAW and CAP_NET_ADMIN (setcap cap_net_raw,cap_net_admin=eip), or record without capture "
                + "privileges with --proxy")
        case PCAP_ERROR_NO_SUCH_DEVICE:
            return CaptureError(.noSuchInterface, "no interface named \(name) (\(said)): list interfaces with `ip link` (Linux) "
                + "or `ifconfig`; loopback is `lo` on Linux, `lo0` on macOS")
        case PCAP_ERROR_IFACE_NOT_UP:
            return CaptureError(.live, "interface \(name) is down: bring it up (`ip link set \(name) up`) or pick another")
        default:
            return CaptureError(.live, "cannot capture on \(name): \(said)")
        }
    }

    private static func text(_ buf: [CChar]) -> String {
        String(decoding: buf.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
