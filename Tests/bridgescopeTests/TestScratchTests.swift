@testable import BridgeTestSupport
import Foundation
import Testing

/// `TestScratch`: the one scratch folder per test process, and the sweep that removes the
/// folders of test processes that are gone (a killed `make test` leaves its folder).
@Suite struct TestScratchTests {
    @Test func theRootIsThisProcessesAndFoldersAreFreshInIt() throws {
        #expect(TestScratch.root.hasSuffix("/bridgescope-tests-\(getpid())"))
        let a = TestScratch.directory("x"), b = TestScratch.directory("x")
        #expect(a != b && a.hasPrefix(TestScratch.root + "/x-") && b.hasPrefix(TestScratch.root + "/x-"))
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: a, isDirectory: &isDirectory) && isDirectory.boolValue)
        #expect(try FileManager.default.contentsOfDirectory(atPath: a).isEmpty)
        let f = TestScratch.file("y", suffix: ".bsz")
        #expect(f.hasPrefix(TestScratch.root + "/y-") && f.hasSuffix(".bsz") && !FileManager.default.fileExists(atPath: f))
    }

    @Test func theSweepRemovesOnlyTheFoldersOfProcessesThatAreGone() throws {
        let base = TestScratch.directory("sweep")
        // A process id that no process has now.
        var gone: Int32 = 4_000_000
        while kill(gone, 0) == 0 || errno != ESRCH { gone -= 1 }
        let names = ["bridgescope-tests-\(gone)", "bridgescope-tests-\(getpid())", "bridgescope-tests-1",
                     "bridgescope-tests-x", "other-\(gone)"]
        for n in names { try FileManager.default.createDirectory(atPath: base + "/" + n, withIntermediateDirectories: true) }
        TestScratch.sweep(base)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: base))
        // Gone: removed. This process, pid 1 (alive), a name without a pid, another prefix: kept.
        #expect(left == Set(names.dropFirst()))
    }
}
