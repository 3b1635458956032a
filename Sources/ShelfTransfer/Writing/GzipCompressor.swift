internal import CZlib

/// Deflates text into one gzip member as a stream: memory stays at zlib's state (about
/// 270 KB at level 6) and one output buffer whatever the size.
///
/// The output is deterministic: the header has no file name and modification time 0, the
/// level is fixed (`level`), so the same text gives the same bytes (with the same zlib).
/// Not thread-safe; one `ByteOutput` owns it.
final class GzipCompressor {
    /// zlib's default level: most of level 9's ratio at a fraction of its time.
    static let level: Int32 = 6
    private let stream: UnsafeMutablePointer<z_stream>
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity = 1 << 16
    private var finished = false

    /// A compressor; `name` (a path, or "stdout") is for errors.
    /// - Throws: `TransferError` when zlib cannot start (out of memory).
    init(name: String) throws(TransferError) {
        buffer = .allocate(capacity: capacity)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        guard shelf_deflate_init_gzip(stream, Self.level) == Z_OK else {
            stream.deallocate()
            buffer.deallocate()
            throw TransferError("cannot compress \(name): zlib could not start (out of memory?)")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        buffer.deallocate()
    }

    /// Compresses `bytes`, handing each full output buffer to `write`; with `finishing`,
    /// also the rest and the gzip trailer (CRC-32 and length), after which nothing more may
    /// be compressed.
    func compress(
        _ bytes: [UInt8], finishing: Bool, write: (UnsafeRawBufferPointer) throws(TransferError) -> Void
    ) throws(TransferError) {
        guard !finished else { return }
        try bytes.withUnsafeBufferPointer { input throws(TransferError) in
            // zlib counts in 32 bits: a larger buffer goes in pieces.
            var start = 0
            repeat {
                let count = min(input.count - start, 1 << 30)
                let last = start + count == input.count
                stream.pointee.next_in = input.baseAddress.map { UnsafeMutablePointer(mutating: $0 + start) }
                stream.pointee.avail_in = UInt32(count)
                try deflatePiece(finishing: finishing && last, write: write)
                start += count
            } while start < input.count
            stream.pointee.next_in = nil
        }
        if finishing { finished = true }
    }

    /// Deflates what `next_in` holds, and with `finishing` ends the member.
    private func deflatePiece(
        finishing: Bool, write: (UnsafeRawBufferPointer) throws(TransferError) -> Void
    ) throws(TransferError) {
        var result = Z_OK
        repeat {
            stream.pointee.next_out = buffer
            stream.pointee.avail_out = UInt32(capacity)
            result = deflate(stream, finishing ? Z_FINISH : Z_NO_FLUSH)
            // Z_STREAM_ERROR only for a misused stream; Z_BUF_ERROR means no progress, harmless.
            guard result != Z_STREAM_ERROR else { throw TransferError("cannot compress: zlib's state is broken") }
            let produced = capacity - Int(stream.pointee.avail_out)
            if produced > 0 { try write(UnsafeRawBufferPointer(start: buffer, count: produced)) }
        } while stream.pointee.avail_out == 0 || (finishing && result != Z_STREAM_END)
    }
}
