/// A source that decompresses gzip data and passes anything else through: gzip is
/// recognized by its magic bytes 1F 8B, whatever the name (stdin, a file without `.gz`).
///
/// A name ending in `.gz` must hold gzip data: a file so named that does not start with the
/// magic bytes (or is empty) is an error rather than read as text. The choice is made at the
/// first read, so opening never blocks on a pipe. Progress (`consumed`, `size`) counts the
/// underlying, compressed bytes. Not thread-safe; one `ByteInput` owns it.
final class DecompressingSource: ByteSource {
    /// The name errors use: a path, or "stdin".
    let name: String
    private let inner: any ByteSource
    private var decided: (any ByteSource)?
    /// Bytes read from `inner` to decide, still to be returned when it is not gzip.
    private var pending: [UInt8] = []

    /// Reads `inner`, decompressing it when it is gzip data.
    init(_ inner: any ByteSource, name: String) {
        self.inner = inner
        self.name = name
    }

    var size: Int? { inner.size }

    var consumed: Int { inner.consumed }

    var isGzip: Bool { decided is GzipSource }

    func read(into start: UnsafeMutablePointer<UInt8>, capacity: Int) throws(TransferError) -> Int {
        if let decided { return try decided.read(into: start, capacity: capacity) }
        if pending.isEmpty {
            try decide()
            if let decided { return try decided.read(into: start, capacity: capacity) }
        }
        // Plain text: the bytes read to decide come first.
        let count = min(capacity, pending.count)
        guard count > 0 else { return try inner.read(into: start, capacity: capacity) }
        start.initialize(from: pending, count: count)
        pending.removeFirst(count)
        if pending.isEmpty { decided = inner }
        return count
    }

    /// Reads the first two bytes (fewer at the end) and picks gzip or plain.
    private func decide() throws(TransferError) {
        var prefix = [UInt8](repeating: 0, count: 2)
        var count = 0
        while count < 2 {
            let read = try prefix.withUnsafeMutableBufferPointer { buffer throws(TransferError) in
                guard let base = buffer.baseAddress else { return 0 }
                return try inner.read(into: base + count, capacity: 2 - count)
            }
            if read == 0 { break }
            count += read
        }
        prefix.removeLast(2 - count)
        // A lone 1F at the end is gzip data cut short, reported as such.
        if prefix == [0x1F, 0x8B] || (prefix == [0x1F] && TransferCompression(fileName: name) == .gzip) {
            decided = try GzipSource(inner: inner, name: name, prefix: prefix)
            return
        }
        if TransferCompression(fileName: name) == .gzip {
            throw TransferError(
                file: name, position: nil,
                reason: count == 0
                    ? "the file is empty, but its name ends in .gz: gzip data is never empty. "
                        + "Check that it is the file you meant (an interrupted download?)"
                    : "its name ends in .gz, but it is not gzip data (which starts with the bytes 1F 8B). "
                        + "If it is plain text, rename it without .gz")
        }
        guard count > 0 else {
            decided = inner
            return
        }
        pending = prefix
    }
}
