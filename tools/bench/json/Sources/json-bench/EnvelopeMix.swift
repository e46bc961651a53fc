import Foundation

/// A deterministic mix of bridge envelopes (PROTOCOL.md §1-§4) as a recorder would see
/// them: many small requests, events, acknowledgements and errors, and a few capture
/// responses carrying base64 images of a few KB up to ~100 KB.
struct EnvelopeMix {
    /// One envelope's bytes and the kind it was generated as.
    struct Item {
        var kind: String
        var bytes: [UInt8]
    }

    private(set) var items: [Item] = []
    private var rng: SplitMix64
    private var clock: Int64 = 1_700_000_000_000
    private var nextId = 0

    /// Generates `count` envelopes from `seed`; the same arguments give the same bytes.
    init(count: Int, seed: UInt64) {
        rng = SplitMix64(state: seed)
        while items.count < count { addExchange() }
        if items.count > count { items.removeLast(items.count - count) }
    }

    private mutating func addExchange() {
        let roll = Int.random(in: 0..<100, using: &rng)
        switch roll {
        case 0..<8: capabilityQuery()
        case 8..<18: documentCapture()
        case 18..<23: selfieCapture()
        case 23..<28: nfcRead()
        case 28..<36: busyOrUnsupported()
        default: event()
        }
    }

    // MARK: exchanges

    private mutating func capabilityQuery() {
        let id = newId("cap")
        add("capability.query/request", request(id, "capability.query", data: nil))
        let caps = """
            {"camera.document":{"supported":true,"version":"2.3.0","permissionState":"granted",\
            "constraints":{"sides":["front","back","single"],"maxWidth":4032,"maxHeight":3024}},\
            "camera.selfie":{"supported":true,"version":"1.8.1","permissionState":"notDetermined"},\
            "nfc.read":{"supported":\(Bool.random(using: &rng)),"version":"1.0.0"}}
            """
        let data = #"{"environment":"ios","hostVersion":"5.2.1","capabilities":\#(caps)}"#
        add("capability.query/response", response(id, "capability.query", status: "success", data: data))
    }

    private mutating func documentCapture() {
        let id = newId("doc")
        let side = ["front", "back", "single"].randomElement(using: &rng)!
        add("document/request", request(id, "camera.document.capture",
                                         data: #"{"documentType":"passport","side":"\#(side)"}"#))
        add("document/acknowledged", response(id, "camera.document.capture", status: "acknowledged", data: nil))
        if Int.random(in: 0..<10, using: &rng) == 0 {
            add("document/error", response(id, "camera.document.capture", status: "error", data: nil,
                                           error: ("CAMERA_DENIED", "The user denied camera access", true)))
            return
        }
        let image = base64(bytes: imageSize(min: 4 << 10, max: 100 << 10))
        let mime = Bool.random(using: &rng) ? "image/jpeg" : "image/png"
        let data = #"{"imageData":"\#(image)","width":1280,"height":853,"mimeType":"\#(mime)"}"#
        add("document/response", response(id, "camera.document.capture", status: "success", data: data))
    }

    private mutating func selfieCapture() {
        let id = newId("selfie")
        add("selfie/request", request(id, "camera.selfie.capture", data: nil))
        let preview = base64(bytes: imageSize(min: 3 << 10, max: 40 << 10))
        let encrypted = base64(bytes: imageSize(min: 2 << 10, max: 12 << 10))
        let plain = base64(bytes: imageSize(min: 1 << 10, max: 6 << 10))
        let data = """
            {"previewImageData":"\(preview)","width":480,"height":640,"mimeType":"image/jpeg",\
            "encryptedBlob":"\(encrypted)","unencryptedBlob":"\(plain)"}
            """
        add("selfie/response", response(id, "camera.selfie.capture", status: "success", data: data))
    }

    private mutating func nfcRead() {
        let id = newId("nfc")
        add("nfc/request", request(id, "nfc.read", data: #"{"dataGroups":["DG1","DG2","DG11"]}"#))
        let data = #"{"chipRead":true,"dataGroups":["DG1","DG2","DG11"],"mrz":"P<GBRDOE<<JOHN<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<\n1234567890GBR8001014M3001012<<<<<<<<<<<<<<06"}"#
        add("nfc/response", response(id, "nfc.read", status: "success", data: data))
    }

    private mutating func busyOrUnsupported() {
        let id = newId("req")
        if Bool.random(using: &rng) {
            add("busy/request", request(id, "camera.document.capture", data: #"{"documentType":"id_card","side":"front"}"#))
            add("busy/error", response(id, "camera.document.capture", status: "error", data: nil,
                                       error: ("BUSY", "A camera.document capture request is already in progress", true)))
        } else {
            add("unsupported/request", request(id, "wallet.open", data: #"{"provider":"example"}"#))
            add("unsupported/error", response(id, "wallet.open", status: "unsupported", data: nil,
                                              error: ("UNSUPPORTED_ACTION", "No handler for action wallet.open", false)))
        }
    }

    private mutating func event() {
        let uuid = uuidString()
        let (action, data): (String, String) = switch Int.random(in: 0..<6, using: &rng) {
        case 0: ("host.ready", #"{"platform":"ios","sdkVersion":"5.2.1"}"#)
        case 1: ("host.orientation", #"{"orientation":"portrait","angle":0}"#)
        case 2: ("host.background", #"{"at":\#(clock / 1000)}"#)
        case 3: ("journey.progress", #"{"step":"document","percent":\#(Int.random(in: 0...100, using: &rng)),"label":"Scanning… hold steady"}"#)
        case 4: ("journey.started", #"{"journeyId":"\#(uuid)","locale":"en-GB"}"#)
        default: ("journey.complete", #"{"status":"passed","referenceId":"ref-\#(uuid.prefix(8))"}"#)
        }
        tick()
        add("event", #"{"version":"1.0","correlationId":"ios-event-\#(uuid)","type":"event","timestamp":\#(clock),"payload":{"action":"\#(action)","data":\#(data)}}"#)
    }

    // MARK: building blocks

    private mutating func request(_ id: String, _ action: String, data: String?) -> String {
        tick()
        let d = data.map { #","data":\#($0)"# } ?? ""
        return #"{"version":"1.0","correlationId":"\#(id)","type":"request","timestamp":\#(clock),"payload":{"action":"\#(action)"\#(d)}}"#
    }

    private mutating func response(_ id: String, _ action: String, status: String, data: String?,
                                   error: (String, String, Bool)? = nil) -> String {
        tick()
        var payload = #"{"action":"\#(action)","status":"\#(status)""#
        if let data { payload += #","data":\#(data)"# }
        if let (code, message, recoverable) = error {
            payload += #","error":{"code":"\#(code)","message":"\#(message)","recoverable":\#(recoverable)}"#
        }
        return #"{"version":"1.0","correlationId":"\#(id)","type":"response","timestamp":\#(clock),"payload":\#(payload)}}"#
    }

    private mutating func add(_ kind: String, _ text: String) {
        items.append(Item(kind: kind, bytes: Array(text.utf8)))
    }

    private mutating func tick() { clock += Int64.random(in: 1...900, using: &rng) }

    private mutating func newId(_ prefix: String) -> String {
        nextId += 1
        return "\(prefix)-\(nextId)-\(uuidString().prefix(8))"
    }

    private mutating func uuidString() -> String {
        let a = rng.next(), b = rng.next()
        let hex = String(a, radix: 16).leftPadded(16) + String(b, radix: 16).leftPadded(16)
        let h = Array(hex)
        return String(h[0..<8]) + "-" + String(h[8..<12]) + "-" + String(h[12..<16]) + "-"
            + String(h[16..<20]) + "-" + String(h[20..<32])
    }

    /// Log-uniform size between `min` and `max`: small images are more common.
    private mutating func imageSize(min: Int, max: Int) -> Int {
        let x = Double.random(in: log(Double(min))...log(Double(max)), using: &rng)
        return Int(exp(x))
    }

    private mutating func base64(bytes count: Int) -> String {
        var raw = [UInt8](repeating: 0, count: count)
        for k in raw.indices { raw[k] = UInt8(truncatingIfNeeded: rng.next()) }
        return Data(raw).base64EncodedString()
    }
}

/// SplitMix64: a tiny deterministic generator, so every run parses the same bytes.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
