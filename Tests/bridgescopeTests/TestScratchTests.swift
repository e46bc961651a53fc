@testable import BridgeTestSupport
import Foundation
import Testing

/// `TestScratch`: the one scratch folder per test process, and the sweep that removes the
/// folders of test processes that are gone (a killed `make test` leaves its folder).
@Suite struct TestScratchTests {
    @Test func theRootIsThisProcessesAndIsTheTemporaryFolderOfTheTests() throws {
        #expect(TestScratch.root.hasSuffix("/bridgescope-tests-\(getpid())"))
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: TestScratch.root, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(TestScratch.rootURL.path == TestScratch.root && TestScratch.temporaryPath == TestScratch.root + "/")
    }

    @Test func theSweepRemovesOnlyTheFoldersOfProcessesThatAreGone() throws {
        let base = TestScratch.root + "/sweep-\(UUID().uuidString)"
        // A process id that no process has now.
        var gone: Int32 = 4_000_000
        while kill(gone, 0) == 0 || errno != ESRCH { gone -= 1 }
        let names = ["bridgescope-tests-\(gone)", "bridgescope-tests-\(getpid())", "bridgescope-tests-1",
                     "bridgescope-tests-x", "other-\(gone)"]
        for n in names { try FileManager.default.createDirectory(atPath: base + "/" + n, withIntermediateDirectories: true) }
        defer { try? FileManager.default.removeItem(atPath: base) }
        TestScratch.sweep(base)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: base))
        // Gone: removed. This process, pid 1 (alive), a name without a pid, another prefix: kept.
        #expect(left == Set(names.dropFirst()))
    }
}
