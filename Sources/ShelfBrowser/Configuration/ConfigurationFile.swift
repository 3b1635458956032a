internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Reads the configuration file's bytes safely: a symbolic link is followed, only a regular
/// file is read (a FIFO would block the browser's start until something wrote to it, and a
/// device such as /dev/zero never ends), and never more than a bound, also from a file whose
/// size `stat` does not know (the files of /proc and /sys say 0 bytes and are generated as
/// they are read: /proc/kallsyms is megabytes).
enum ConfigurationFile {
    /// What reading gave.
    enum Outcome: Equatable {
        /// No file there: the defaults apply, without a word.
        case missing
        /// The file's bytes, at most the bound.
        case read(Data)
        /// Something is there that is not read: why, as the problem's message.
        case refused(String)
    }

    /// The bytes of the file at `path`, at most `limit` of them; blocks while it reads.
    static func contents(path: String, limit: Int) -> Outcome {
        var link = stat()
        let isLink = lstat(path, &link) == 0 && link.st_mode & S_IFMT == S_IFLNK
        var status = stat()
        guard stat(path, &status) == 0 else {
            let error = errno
            if error == ENOENT, !isLink { return .missing }
            if error == ENOENT || error == ELOOP {
                return .refused(
                    "is a symbolic link that leads nowhere (a loop, or its target is gone); the defaults apply")
            }
            return .refused("could not be read (\(String(cString: strerror(error)))); the defaults apply")
        }
        let type = status.st_mode & S_IFMT
        guard type == S_IFREG else {
            let kind =
                switch type {
                case S_IFDIR: "a directory"
                case S_IFCHR, S_IFBLK: "a device"
                case S_IFSOCK: "a socket"
                case S_IFIFO: "a FIFO (a named pipe)"
                default: "a special file"
                }
            return .refused(
                "is \(isLink ? "a symbolic link to " : "")\(kind), not a file; the defaults apply "
                    + "(replace it with a TOML file, or remove it)")
        }
        let size = Int(status.st_size)
        guard size <= limit else {
            return .refused(
                "is \(size) bytes, more than a configuration file's \(limit); the defaults apply "
                    + "(is this the right file?)")
        }
        // Non-blocking: were a FIFO put in its place since `stat`, opening it does not wait.
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard descriptor >= 0 else {
            return .refused("could not be read (\(String(cString: strerror(errno)))); the defaults apply")
        }
        defer { close(descriptor) }
        var opened = stat()
        guard fstat(descriptor, &opened) == 0, opened.st_mode & S_IFMT == S_IFREG,
            opened.st_dev == status.st_dev, opened.st_ino == status.st_ino
        else {
            return .refused("was replaced while it was opened; the defaults apply (start again)")
        }
        // In whole chunks (some files of /proc take only reads of a multiple of 8 bytes), until
        // the end or past the bound: a byte past it tells a file over it.
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while data.count <= limit {
            let got = chunk.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return read(descriptor, base, buffer.count)
            }
            if got == 0 { break }
            if got < 0 {
                if errno == EINTR { continue }
                return .refused("could not be read (\(String(cString: strerror(errno)))); the defaults apply")
            }
            data.append(contentsOf: chunk[..<got])
        }
        guard data.count <= limit else {
            let what =
                size == 0
                ? "is a file made as it is read (stat says 0 bytes, as for the files of /proc and /sys), longer"
                : "grew while it was read (stat said \(size) bytes) to more"
            return .refused(
                "\(what) than a configuration file's \(limit) bytes; the defaults apply (is this the right file?)")
        }
        return .read(data)
    }
}
