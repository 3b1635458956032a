#if canImport(Glibc)
    internal import Glibc
#endif

/// A file's device and inode: what stays the same while a file is written, and changes when
/// another file is moved over its path.
struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }

    /// The identity of the file at `path`, or nil when there is none.
    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
