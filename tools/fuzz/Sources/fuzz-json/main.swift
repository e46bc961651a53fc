import BridgeFuzz
import LibFuzzerDriver

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzHarness.jsonParser(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// Half libFuzzer's own byte mutations, half the structure-aware message mutator.
@_cdecl("LLVMFuzzerCustomMutator")
public func fuzzMutate(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    seed & 1 == 0 ? libFuzzerMutate(data, size, maxSize) : FuzzHarness.mutateMessage(data, size, maxSize, seed)
}

runLibFuzzer(fuzzTest)
