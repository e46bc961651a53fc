import BridgeHost
import BridgeJSON
import BridgeProtocol

/// How big the in-process host's stub pictures are.
public enum StubImages: String, Sendable, Hashable {
    /// The stub cameras' real pictures (tens of kilobytes of base64 per capture answer).
    case full
    /// Same answers, same shapes, same widths and heights, with a few bytes of picture:
    /// the fuzzer's default, since routing never looks at the pixels and writing and
    /// re-reading the full pictures would be most of each execution's cost.
    case small
}

extension Scenario {
    /// The scenario's slot scripts with small pictures (``StubImages/small``). The outcomes,
    /// latencies, errors and cancel reasons are the scenario's own (docs/SCENARIOS.md).
    func smallImageBehaviour(_ kind: SlotKind) -> ScriptedBehaviour {
        let s = self[slot: kind]
        let success: BridgeResponse
        var bySide: [String: JSONObject] = [:]
        switch kind {
        case .document:
            let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            func page(_ h: Int) -> BridgeResponse {
                CaptureResult.document(DocumentCaptureResult(imageData: png, width: StubDocumentCamera.pageWidth, height: h,
                                                             mimeType: "image/png")).response(for: .document)
            }
            success = page(StubDocumentCamera.pageHeight)
            bySide = ["front": success.data!, "back": success.data!, "single": page(StubDocumentCamera.pageHeight * 2).data!]
        case .selfie:
            let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
            success = CaptureResult.selfie(SelfieCaptureResult(previewImageData: jpeg, width: StubSelfieCamera.width,
                                                               height: StubSelfieCamera.height, mimeType: "image/jpeg",
                                                               encryptedBlob: Array("enc".utf8), unencryptedBlob: Array("plain".utf8)))
                .response(for: .selfie)
        }
        let responses = s.outcomes.map { outcome -> BridgeResponse in
            switch outcome {
            case .success: return success
            case .cancelled: return .cancelled(reason: s.cancelReason)
            case .denied: return .failure(.cameraDenied, "Camera permission was denied", recoverable: true)
            case .failed:
                return BridgeResponse(status: .error, error: s.error ?? ErrorPayload(code: .captureFailed, message: "The capture failed", recoverable: true))
            }
        }
        return ScriptedBehaviour(latencyMs: s.latencyMs, outcomes: responses, successDataBySide: bySide)
    }
}
