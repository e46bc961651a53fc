/// The stub selfie camera (seed 000's `StubSelfieCameraView` on the Simulator): draws a
/// face silhouette as a 480×640 JPEG, and returns placeholder biometric blobs.
///
/// Seed 000's stub puts the same JPEG bytes in `previewImageData`, `encryptedBlob` and
/// `unencryptedBlob`; the analyzer flags that as `stub-capture-result`. The reference
/// host's default, ``BlobStyle/distinctPlaceholders``, makes each blob different from
/// the preview and from each other (deterministic bytes led by an ASCII tag naming the
/// blob); ``BlobStyle/previewJPEG`` reproduces the seed exactly.
public struct StubSelfieCamera: Sendable {
    /// How the stub fills the biometric blobs.
    public enum BlobStyle: String, Sendable, Hashable, CaseIterable {
        /// Tagged deterministic placeholder bytes, different from the preview and each other.
        case distinctPlaceholders = "distinct"
        /// The preview JPEG in both blobs, exactly like seed 000's stub.
        case previewJPEG = "jpeg"
    }

    /// Width of the preview.
    public static let width = 480
    /// Height of the preview.
    public static let height = 640
    /// Size of each placeholder blob in bytes.
    public static let placeholderBlobSize = 1024

    /// The blob style.
    public var blobStyle: BlobStyle

    /// Creates the stub camera.
    public init(blobStyle: BlobStyle = .distinctPlaceholders) {
        self.blobStyle = blobStyle
    }

    /// A capture: the preview JPEG and two blobs per ``blobStyle``.
    public func capture() -> SelfieCaptureResult {
        let jpeg = Self.preview
        switch blobStyle {
        case .previewJPEG:
            return SelfieCaptureResult(previewImageData: jpeg, width: Self.width, height: Self.height,
                                       encryptedBlob: jpeg, unencryptedBlob: jpeg)
        case .distinctPlaceholders:
            return SelfieCaptureResult(previewImageData: jpeg, width: Self.width, height: Self.height,
                                       encryptedBlob: Self.encryptedPlaceholder, unencryptedBlob: Self.unencryptedPlaceholder)
        }
    }

    static let encryptedPlaceholder = placeholder(tag: "BRIDGESCOPE-STUB-ENCRYPTED-BLOB v1\n", seed: 0xE5C2_A7ED)
    static let unencryptedPlaceholder = placeholder(tag: "BRIDGESCOPE-STUB-UNENCRYPTED-BLOB v1\n", seed: 0x0DEC_0DED)

    /// `tag` followed by SplitMix64 bytes up to ``placeholderBlobSize``.
    static func placeholder(tag: String, seed: UInt64) -> [UInt8] {
        var out = Array(tag.utf8)
        var g = EventIDGenerator(seed: seed)
        while out.count < placeholderBlobSize {
            var v = g.nextUInt64()
            for _ in 0..<8 where out.count < placeholderBlobSize {
                out.append(UInt8(truncatingIfNeeded: v))
                v >>= 8
            }
        }
        return out
    }

    static let preview: [UInt8] = (try? JPEGEncoder.encode(rgb: drawPreview().pixels, width: width, height: height)) ?? []

    static func drawPreview() -> RGBCanvas {
        var c = RGBCanvas(width: width, height: height, fill: RGB(0, 0, 0))
        c.verticalGradient(top: RGB(176, 200, 226), bottom: RGB(92, 104, 122))
        let cx = width / 2
        c.fillEllipse(cx: cx, cy: 640, rx: 200, ry: 150, RGB(40, 52, 74))         // shoulders
        c.fillRect(x: cx - 38, y: 400, w: 76, h: 110, RGB(214, 170, 140))          // neck
        c.fillEllipse(cx: cx, cy: 300, rx: 112, ry: 146, RGB(224, 182, 150))       // face
        c.fillEllipse(cx: cx, cy: 205, rx: 120, ry: 72, RGB(60, 44, 36))           // hair
        c.fillEllipse(cx: cx - 44, cy: 290, rx: 13, ry: 8, RGB(50, 40, 40))         // eyes
        c.fillEllipse(cx: cx + 44, cy: 290, rx: 13, ry: 8, RGB(50, 40, 40))
        c.fillRect(x: cx - 5, y: 300, w: 10, h: 40, RGB(204, 160, 130))           // nose
        c.fillEllipse(cx: cx, cy: 372, rx: 34, ry: 7, RGB(160, 80, 80))            // mouth
        c.text("STUB SELFIE", x: cx - RGBCanvas.textWidth("STUB SELFIE", scale: 3) / 2, y: 24, scale: 3,
               RGB(255, 255, 255))
        return c
    }
}
