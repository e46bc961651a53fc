@testable import BridgeHost
import Foundation
import Testing

/// The stub cameras draw real images: checked by reading the files' own headers.
struct ImageTests {
    @Test(arguments: [("front", 540, 380), ("back", 540, 380), ("single", 540, 760)])
    func documentPNGHasItsDimensions(side: String, width: Int, height: Int) throws {
        let r = StubDocumentCamera().capture(side: side)
        #expect(r.mimeType == "image/png")
        #expect(r.width == width && r.height == height)
        let info = try #require(ImageProbe.png(r.imageData))
        #expect(info.width == width && info.height == height)
        #expect(info.colourType == 2 && info.bitDepth == 8)
        #expect(info.chunks.first == "IHDR" && info.chunks.last == "IEND" && info.chunks.contains("IDAT"))
        #expect(info.crcsValid)
        ImageProbe.dump(r.imageData, name: "document-\(side).png")
    }

    @Test func documentSidesDiffer() {
        let cam = StubDocumentCamera()
        #expect(cam.capture(side: "front").imageData != cam.capture(side: "back").imageData)
        #expect(cam.capture(side: "unknown") == cam.capture(side: "front"))
    }

    @Test func selfieJPEGHasItsDimensions() throws {
        let r = StubSelfieCamera().capture()
        #expect(r.mimeType == "image/jpeg")
        #expect(r.width == 480 && r.height == 640)
        let info = try #require(ImageProbe.jpeg(r.previewImageData))
        #expect(info.width == 480 && info.height == 640)
        #expect(info.components == 3)
        ImageProbe.dump(r.previewImageData, name: "selfie.jpg")
        let canvas = StubSelfieCamera.drawPreview()
        ImageProbe.dump(try PNGEncoder.encode(rgb: canvas.pixels, width: canvas.width, height: canvas.height), name: "selfie.png")
    }

    @Test func selfieBlobsAreDistinctPlaceholdersByDefault() {
        let r = StubSelfieCamera().capture()
        #expect(r.encryptedBlob != r.previewImageData)
        #expect(r.unencryptedBlob != r.previewImageData)
        #expect(r.encryptedBlob != r.unencryptedBlob)
        #expect(r.encryptedBlob.count == StubSelfieCamera.placeholderBlobSize)
        #expect(r.encryptedBlob.starts(with: Array("BRIDGESCOPE-STUB-ENCRYPTED-BLOB".utf8)))
        #expect(r.unencryptedBlob.starts(with: Array("BRIDGESCOPE-STUB-UNENCRYPTED-BLOB".utf8)))
        #expect(ImageProbe.jpeg(r.encryptedBlob) == nil)
    }

    @Test func selfieSeedCompatibleBlobsRepeatThePreview() {
        let r = StubSelfieCamera(blobStyle: .previewJPEG).capture()
        #expect(r.encryptedBlob == r.previewImageData && r.unencryptedBlob == r.previewImageData)
    }

    @Test func encodersRefuseBadSizes() {
        #expect(throws: HostError.self) { try PNGEncoder.encode(rgb: [], width: 0, height: 1) }
        #expect(throws: HostError.self) { try PNGEncoder.encode(rgb: [1, 2, 3], width: 2, height: 1) }
        #expect(throws: HostError.self) { try JPEGEncoder.encode(rgb: [], width: 9000, height: 1) }
        #expect(throws: HostError.self) { try JPEGEncoder.encode(rgb: [0, 0, 0], width: 1, height: 1, quality: 0) }
    }

    @Test func tinyImagesRoundTripTheirHeaders() throws {
        let png = try PNGEncoder.encode(rgb: [255, 0, 0, 0, 255, 0], width: 2, height: 1)
        #expect(ImageProbe.png(png)?.width == 2)
        let jpeg = try JPEGEncoder.encode(rgb: [UInt8](repeating: 128, count: 3 * 16 * 8), width: 16, height: 8)
        #expect(ImageProbe.jpeg(jpeg)?.height == 8)
    }
}
