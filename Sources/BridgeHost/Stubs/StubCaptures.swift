import BridgeJSON

/// The scripted hosts' capture answers, drawn, encoded and base64-encoded once per process
/// (drawing and encoding the stub pictures takes tens of milliseconds): every scenario host
/// shares them, so making a host costs microseconds and `host.ready` goes out at once.
enum StubCaptures {
    /// `success` for a document capture with no `side` (the front page).
    static let documentSuccess = CaptureResult.document(StubDocumentCamera().capture(side: "front")).response(for: .document)

    /// `success` data by requested side.
    static let documentDataBySide: [String: JSONObject] = {
        var bySide: [String: JSONObject] = [:]
        let camera = StubDocumentCamera()
        for side in ["front", "back", "single"] {
            bySide[side] = CaptureResult.document(camera.capture(side: side)).response(for: .document).data
        }
        return bySide
    }()

    /// `success` for a selfie capture, by blob style.
    static let selfieSuccess: [StubSelfieCamera.BlobStyle: BridgeResponse] = {
        var out: [StubSelfieCamera.BlobStyle: BridgeResponse] = [:]
        for style in StubSelfieCamera.BlobStyle.allCases {
            out[style] = CaptureResult.selfie(StubSelfieCamera(blobStyle: style).capture()).response(for: .selfie)
        }
        return out
    }()
}

extension Scenario {
    /// Draws and encodes the stub captures now (once per process) instead of when the first
    /// host is made: servers call it before they start accepting connections.
    public static func prepareStubCaptures() {
        _ = StubCaptures.documentSuccess
        _ = StubCaptures.documentDataBySide
        _ = StubCaptures.selfieSuccess
    }
}
