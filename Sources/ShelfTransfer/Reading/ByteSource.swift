internal import Foundation

/// Where `ByteInput` gets its bytes: a file descriptor, or a layer over one that decodes
/// (decompression, another text encoding into UTF-8).
///
/// Used by one reader at a time; not thread-safe.
protocol ByteSource: AnyObject {
    /// Reads up to `capacity` bytes into `start`; 0 only at the end.
    /// - Throws: `TransferError` when the bytes cannot be read or decoded.
    func read(into start: UnsafeMutablePointer<UInt8>, capacity: Int) throws(TransferError) -> Int

    /// The size in bytes of the underlying file when it is a regular file (for progress), or nil.
    var size: Int? { get }

    /// Bytes of the underlying file consumed so far (for progress against `size`).
    var consumed: Int { get }
}

/// Bytes read from a file descriptor as they are.
final class DescriptorSource: ByteSource {
    /// The name errors use: a path, or "stdin".
    let name: String
    let descriptor: Int32
    private let closes: Bool
    private(set) var consumed = 0

    /// Reads `descriptor`; closes it on release when `closes` is true.
    init(descriptor: Int32, name: String, closes: Bool) {
        self.descriptor = descriptor
        self.name = name
        self.closes = closes
    }

    deinit {
        if closes { close(descriptor) }
    }

    var size: Int? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int(info.st_size)
    }

    func read(into start: UnsafeMutablePointer<UInt8>, capacity: Int) throws(TransferError) -> Int {
        while true {
            let read = Foundation.read(descriptor, start, capacity)
            if read >= 0 {
                consumed += read
                return read
            }
            if errno == EINTR { continue }
            throw TransferError("cannot read \(name): \(String(cString: strerror(errno)))")
        }
    }
}
