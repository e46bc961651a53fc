import BridgeJSON
import BridgeProtocol
import Foundation

/// A captured document picture (seed 000's `DocumentCaptureResult`).
public struct DocumentCaptureResult: Sendable, Hashable {
    /// The encoded image (PNG from the stub camera).
    public var imageData: [UInt8]
    /// Pixel width.
    public var width: Int
    /// Pixel height.
    public var height: Int
    /// `image/png` (default) or `image/jpeg`.
    public var mimeType: String

    /// Creates a result; `mimeType` defaults to `image/png` like the seed's stub.
    public init(imageData: [UInt8], width: Int, height: Int, mimeType: String = "image/png") {
        self.imageData = imageData
        self.width = width
        self.height = height
        self.mimeType = mimeType
    }
}

/// A captured selfie (seed 000's `SelfieCaptureResult`): a JPEG preview and two
/// biometric blobs.
public struct SelfieCaptureResult: Sendable, Hashable {
    /// The JPEG preview.
    public var previewImageData: [UInt8]
    /// Pixel width of the preview.
    public var width: Int
    /// Pixel height of the preview.
    public var height: Int
    /// Always `image/jpeg` for the preview.
    public var mimeType: String
    /// The encrypted biometric blob (a placeholder from the stub camera).
    public var encryptedBlob: [UInt8]
    /// The unencrypted biometric blob (a placeholder from the stub camera).
    public var unencryptedBlob: [UInt8]

    /// Creates a result; `mimeType` defaults to `image/jpeg`.
    public init(previewImageData: [UInt8], width: Int, height: Int, mimeType: String = "image/jpeg",
                encryptedBlob: [UInt8], unencryptedBlob: [UInt8]) {
        self.previewImageData = previewImageData
        self.width = width
        self.height = height
        self.mimeType = mimeType
        self.encryptedBlob = encryptedBlob
        self.unencryptedBlob = unencryptedBlob
    }
}

/// What a typed slot's handler returns (seed 002, "Returning Results"). The host encodes
/// it into the response as PROTOCOL.md §3 says.
public enum CaptureResult: Sendable, Hashable {
    /// A document picture: `success` with `{imageData, width, height, mimeType}`.
    case document(DocumentCaptureResult)
    /// A selfie: `success` with `{previewImageData, width, height, mimeType, encryptedBlob, unencryptedBlob}`.
    case selfie(SelfieCaptureResult)
    /// The user dismissed the camera: `cancelled` with `{"reason": reason}`.
    case cancelled(reason: String)
    /// The capture failed: `error` with `{code, message, recoverable}`.
    case failed(code: ErrorCode, message: String, recoverable: Bool = true)

    /// The response this result becomes on `slot`. A document result on the selfie slot
    /// (or the reverse) is a handler bug: it becomes `error` / `CAPTURE_FAILED`.
    public func response(for slot: SlotKind) -> BridgeResponse {
        switch (self, slot) {
        case (.document(let r), .document):
            return .success(.make([
                "imageData": .string(Data(r.imageData).base64EncodedString()),
                "width": .integer(Int64(r.width)),
                "height": .integer(Int64(r.height)),
                "mimeType": .string(r.mimeType),
            ]))
        case (.selfie(let r), .selfie):
            return .success(.make([
                "previewImageData": .string(Data(r.previewImageData).base64EncodedString()),
                "width": .integer(Int64(r.width)),
                "height": .integer(Int64(r.height)),
                "mimeType": .string(r.mimeType),
                "encryptedBlob": .string(Data(r.encryptedBlob).base64EncodedString()),
                "unencryptedBlob": .string(Data(r.unencryptedBlob).base64EncodedString()),
            ]))
        case (.cancelled(let reason), _):
            return .cancelled(reason: reason)
        case (.failed(let code, let message, let recoverable), _):
            return .failure(code, message, recoverable: recoverable)
        case (.document, .selfie), (.selfie, .document):
            return .failure(.captureFailed, "The \(slot.capabilityID) handler returned a \(kindName) result",
                            recoverable: true)
        }
    }

    /// `document`, `selfie`, `cancelled` or `failed`.
    public var kindName: String {
        switch self {
        case .document: return "document"
        case .selfie: return "selfie"
        case .cancelled: return "cancelled"
        case .failed: return "failed"
        }
    }
}
