/// libFuzzer target for `JSONReader`: the first byte chooses an array of objects, NDJSON or
/// a single document of any value, and a read buffer of 1 to 32 bytes so that tokens
/// straddle refills. Every record is read. Errors are expected; crashes, hangs and growing
/// memory are bugs.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size > 0 else { return 0 }
    let mode = data[0] >> 6
    let input = FuzzInput.make(data + 1, size - 1, capacity: Int(data[0] & 31) + 1)
    do {
        if mode == 3 {
            var reader = JSONReader(input: input, lines: false)
            try reader.readDocument()
            return 0
        }
        var reader = JSONReader(input: input, lines: mode == 1)
        var record = SourceRecord()
        while try reader.next(into: &record) {
            for case let value? in record.values { checkText(record, value) }
        }
    } catch {
        checkError(error)
    }
    return 0
}
