internal import CZlib
internal import Foundation

/// The decompressed bytes of gzip data read from another source, inflated as a stream: memory
/// stays at one input buffer and zlib's state (about 50 KB) whatever the size.
///
/// Reads files as `gunzip` does: several members one after another (`cat a.gz b.gz`) are one
/// text. Unlike `gunzip`, which warns and goes on, anything that makes the data
/// untrustworthy is an error naming the file and the compressed byte offset: data cut short,
/// a CRC-32 or length that does not match, corrupt deflate data, or bytes after the last
/// member that do not start another. The end of the data is only reported (0 from `read`)
/// once the last member's checks have passed.
///
/// Not thread-safe; one `ByteInput` owns it.
final class GzipSource: ByteSource {
    /// The name errors use: a path, or "stdin".
    let name: String
    private let inner: any ByteSource
    private let stream: UnsafeMutablePointer<z_stream>
    private let buffer: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    private var state = State.member
    /// The compressed offset at which the current member starts, for errors.
    private var memberStart = 0
    /// `inner` returned 0: its data ended.
    private var innerEnded = false

    private enum State {
        /// Inflating a member.
        case member
        /// A member ended; another may follow.
        case betweenMembers
        /// The data ended after a whole member.
        case finished
    }

    /// Inflates `inner`, whose first bytes `prefix` (the magic bytes 1F 8B, already read
    /// from it to recognize gzip) come first.
    /// - Throws: `TransferError` when zlib cannot start (out of memory).
    init(inner: any ByteSource, name: String, prefix: [UInt8], capacity: Int = 1 << 16) throws(TransferError) {
        self.inner = inner
        self.name = name
        self.capacity = max(capacity, prefix.count, 2)
        buffer = .allocate(capacity: self.capacity)
        buffer.initialize(from: prefix, count: prefix.count)
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        stream.pointee.next_in = buffer
        stream.pointee.avail_in = UInt32(prefix.count)
        guard shelf_inflate_init_gzip(stream) == Z_OK else {
            stream.deallocate()
            buffer.deallocate()
            throw TransferError("cannot decompress \(name): zlib could not start (out of memory?)")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        buffer.deallocate()
    }

    var size: Int? { inner.size }

    /// Compressed bytes read so far.
    var consumed: Int { inner.consumed }

    /// The compressed offset of the next byte zlib reads.
    private var compressedOffset: Int { inner.consumed - Int(stream.pointee.avail_in) }

    func read(into start: UnsafeMutablePointer<UInt8>, capacity: Int) throws(TransferError) -> Int {
        let room = UInt32(clamping: capacity)
        stream.pointee.next_out = start
        stream.pointee.avail_out = room
        while true {
            let produced = Int(room - stream.pointee.avail_out)
            switch state {
            case .finished:
                return produced
            case .betweenMembers:
                guard try startNextMember() else {
                    state = .finished
                    return produced
                }
            case .member:
                if stream.pointee.avail_in == 0, !innerEnded {
                    // What is inflated so far goes to the reader before waiting for more.
                    if produced > 0 { return produced }
                    let read = try inner.read(into: buffer, capacity: self.capacity)
                    stream.pointee.next_in = buffer
                    stream.pointee.avail_in = UInt32(read)
                    innerEnded = read == 0
                }
                // At the end of the input, zlib may still hold output: it says when it cannot go on.
                let result = inflate(stream, Z_NO_FLUSH)
                switch result {
                case Z_STREAM_END:
                    state = .betweenMembers
                case Z_OK, Z_BUF_ERROR:
                    if stream.pointee.avail_out == 0 { return Int(room) }
                    if result == Z_BUF_ERROR, innerEnded { throw cutShort() }
                case Z_MEM_ERROR:
                    throw TransferError("cannot decompress \(name): out of memory")
                default:
                    throw corrupt()
                }
            }
        }
    }

    /// After a member: true when another follows (zlib is reset for it), false at the end
    /// of the data.
    /// - Throws: `TransferError` when bytes follow that are not a gzip member.
    private func startNextMember() throws(TransferError) -> Bool {
        // Two bytes tell: keep what is left and read until there are two, or the end.
        while stream.pointee.avail_in < 2 {
            let left = Int(stream.pointee.avail_in)
            if left > 0, let next = stream.pointee.next_in, next != buffer { buffer.update(from: next, count: left) }
            let read = innerEnded ? 0 : try inner.read(into: buffer + left, capacity: self.capacity - left)
            stream.pointee.next_in = buffer
            stream.pointee.avail_in = UInt32(left + read)
            if read == 0 {
                innerEnded = true
                break
            }
        }
        let left = Int(stream.pointee.avail_in)
        if left == 0 { return false }
        guard left >= 2, let next = stream.pointee.next_in, next[0] == 0x1F, next[1] == 0x8B else {
            throw TransferError(
                file: name, position: nil,
                reason: "the bytes after the end of the gzip data (from compressed byte \(compressedOffset)) "
                    + "are not gzip data: the file is damaged, or something was appended to it. "
                    + "gunzip -c \(shellName) > \(plainName) keeps the compressed part (with a warning); "
                    + "check that, then import it")
        }
        memberStart = compressedOffset
        guard inflateReset(stream) == Z_OK else { throw corrupt() }
        state = .member
        return true
    }

    /// The error for data that ends inside a member.
    private func cutShort() -> TransferError {
        TransferError(
            file: name, position: nil,
            reason: "the gzip data is cut short: it ends after \(compressedOffset) compressed bytes, inside the "
                + "gzip member that starts at byte \(memberStart) (an interrupted download or copy?). "
                + "Get the whole file again; gzip -t \(shellName) checks a copy")
    }

    /// The error for data zlib refuses, from its message.
    private func corrupt() -> TransferError {
        let message = stream.pointee.msg.map { String(cString: $0) } ?? "invalid data"
        let what: String
        switch message {
        case "incorrect data check":
            what = "its CRC-32 does not match the decompressed bytes"
        case "incorrect length check":
            what = "its recorded length does not match the decompressed bytes"
        case "incorrect header check", "unknown compression method":
            what = "its header is not a gzip header (\(message))"
        default:
            what = "its compressed data is invalid (\(message))"
        }
        return TransferError(
            file: name, position: nil,
            reason:
                "the gzip data is corrupt at compressed byte \(compressedOffset), in the gzip member that starts at "
                + "byte \(memberStart): \(what). The file is damaged; get it again (gzip -t \(shellName) checks a copy)"
        )
    }

    private var shellName: String { TransferError.shellWord(name) }

    /// A name for the decompressed file in advice: without `.gz`, else with `.out`.
    private var plainName: String {
        let inner = TransferCompression.innerName(name)
        return TransferError.shellWord(inner == name ? name + ".out" : inner)
    }
}
