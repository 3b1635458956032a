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

    /// True when the bytes are decompressed from gzip (known after the first read).
    var isGzip: Bool { get }
}

extension ByteSource {
    var isGzip: Bool { false }
}

/// Bytes read from a file descriptor as they are.
///
/// A descriptor that can keep a reader waiting (a pipe, a FIFO, a terminal, a socket) is
/// read only once `poll(2)` says it is ready, and the same poll watches `wake`: waking it
/// makes a waiting or later `read` throw at once, so a cancelled import's thread stops
/// instead of staying blocked (holding the store) until the input comes or ends.
final class DescriptorSource: ByteSource {
    /// The name errors use: a path, or "stdin".
    let name: String
    let descriptor: Int32
    private let closes: Bool
    private let wake: InputWake?
    /// False for a regular file or a block device, whose reads never wait for a writer.
    private let mayWait: Bool
    private(set) var consumed = 0

    /// Reads `descriptor`; closes it on release when `closes` is true.
    init(descriptor: Int32, name: String, closes: Bool, wake: InputWake? = nil) {
        self.descriptor = descriptor
        self.name = name
        self.closes = closes
        self.wake = wake
        var info = stat()
        let kind = fstat(descriptor, &info) == 0 ? info.st_mode & S_IFMT : 0
        mayWait = kind != S_IFREG && kind != S_IFBLK
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
        if let wake, mayWait { try wake.wait(for: descriptor, name: name) }
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

/// What stops a wait for the other end of a pipe or FIFO: a pipe whose write end `wake()`
/// writes to, watched with `poll(2)` beside what is waited for. `DescriptorSource` watches it
/// beside the input (a read waiting for a writer); `openForWriting(_:)` beside a FIFO's open
/// (an export waiting for a reader). Once woken it stays woken.
final class InputWake: Sendable {
    private let readEnd: Int32
    private let writeEnd: Int32

    /// Nil when no pipe can be made (no descriptors left): reads then wait as plain reads do.
    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Wakes every read waiting now or later. Async-signal-safe, callable from any thread.
    func wake() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Returns once `descriptor` has input (or its end, or an error, which the read then
    /// reports); throws `TransferError` when woken first.
    func wait(for descriptor: Int32, name: String) throws(TransferError) {
        while true {
            var entries = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return  // let the read say what is wrong
            }
            if entries[1].revents != 0 {
                throw TransferError("the import was stopped while it waited for \(name)")
            }
            if entries[0].revents != 0 { return }
        }
    }

    /// Opens the FIFO at `path` for writing (close-on-exec, never as the controlling
    /// terminal), waiting until a reader opens it; throws `TransferError` when woken first.
    /// Returns -1 with `errno` set when it cannot be opened.
    ///
    /// A plain `open(O_WRONLY)` of a FIFO blocks until a reader comes, and nothing (a signal
    /// handled by another thread) stops it: an export to a FIFO nobody reads ignored Ctrl-C.
    /// Opened non-blocking, the open fails at once with ENXIO while there is no reader; it is
    /// tried again every 50 ms, the wait in between a `poll` of the wake pipe. The descriptor
    /// returned blocks again.
    func openForWriting(_ path: String) throws(TransferError) -> Int32 {
        while true {
            let descriptor = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
            if descriptor >= 0 {
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
                return descriptor
            }
            if errno == EINTR { continue }
            guard errno == ENXIO else { return -1 }
            var entry = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 50) > 0, entry.revents != 0 {
                throw TransferError("stopped while waiting for a program to read \(path)")
            }
        }
    }
}
