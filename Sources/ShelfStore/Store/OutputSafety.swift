internal import Foundation

/// The guard every file Shelf writes goes through (`export -o`, `import --rejects`, a later
/// `backup`): it refuses a destination whose replacement would destroy data, and says how
/// the destination must be written.
///
/// Refused, whatever the path's spelling (symbolic links, hard links, `./x` against `x`: files
/// are compared by device and inode):
/// - any file in `protecting` (the open database, the command's own input), and for each of
///   them its `-wal`, `-shm` and `-journal` companions;
/// - any existing SQLite database, write-ahead log or rollback journal, recognised by its
///   first bytes (`SQLite format 3\0`, the WAL magic `377f0682`/`377f0683`, the journal magic
///   `d9d505f920a163d7`).
///
/// A destination that exists and is not a regular file (a device, a FIFO, `/dev/stdout` on a
/// pipe or terminal) must be written in place: opened for writing, never replaced by a rename.
///
/// The check is advisory against other processes: a file created between the check and the
/// write is not seen. Every descriptor Shelf writes through is checked again once open
/// (`check(descriptor:name:protecting:)`).
package enum OutputSafety {
    /// How a destination that passed the check must be written.
    package enum Destination: Equatable, Sendable {
        /// No file there yet: create it beside the path and rename it into place, with the
        /// permission bits `0666 & ~umask`.
        case newFile(path: String)
        /// A regular file there: write beside `path` (the symbolic link resolved, so a link
        /// stays a link) and rename over it, keeping `permissions` (its mode bits) and, where
        /// the process may, its `owner` and `group`.
        case replaceFile(path: String, permissions: UInt32, owner: UInt32, group: UInt32)
        /// A device, FIFO or socket: open it for writing and write in place.
        case inPlace(path: String)
        /// One of this process's open descriptors, named as `/dev/stdout`, `/dev/stderr`,
        /// `/dev/fd/N` or `/proc/self/fd/N`: write to it (a duplicate of it) as it is, so a
        /// shell's `>>` still appends and a pipe stays a pipe.
        case descriptor(Int32)
    }

    /// Why a destination was refused: what it is, and what to do. The description is one line.
    package struct Refusal: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// Checks that writing `path` destroys nothing; returns how to write it.
    /// - Parameters:
    ///   - path: the destination as the user gave it.
    ///   - protecting: paths that must never be written, with their SQLite companions (the
    ///     open database, the command's input); paths that do not exist are ignored.
    /// - Throws: `Refusal` naming the file and why.
    package static func check(path: String, protecting: [String]) throws(Refusal) -> Destination {
        if let number = descriptorNumber(path) {
            try check(descriptor: number, name: path, protecting: protecting)
            return .descriptor(number)
        }
        // By name too: a companion that does not exist yet (a -journal, an empty -wal) has no
        // inode to compare, and SQLite names the companions after the database's real path.
        try refuseCompanionName(path, protecting: protecting)
        var status = stat()
        guard stat(path, &status) == 0 else {
            // Nothing there: a new file. A dangling link: a new file where it points, so the
            // link stays a link (as when its target exists, below).
            let target = try writtenPath(path)
            if target != path { try refuseCompanionName(target, protecting: protecting) }
            return .newFile(path: target)
        }
        try refuseProtected(status, name: path, protecting: protecting)
        guard isRegular(status) else { return .inPlace(path: path) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            // Unreadable: its header cannot be checked, so it is not replaced blindly.
            throw Refusal(
                description:
                    "refusing to replace \(path): cannot read it to check that it is no database "
                    + "(\(String(cString: strerror(errno)))); choose another file")
        }
        defer { close(descriptor) }
        try refuseDatabase(descriptor, name: path)
        // Write beside the link's target, so a symbolic link stays a link and its target is replaced.
        let target = realpath(path, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        }
        return .replaceFile(
            path: target ?? path, permissions: UInt32(status.st_mode & 0o7777), owner: status.st_uid,
            group: status.st_gid)
    }

    /// Checks an open descriptor Shelf is about to write (stdout, or a device it opened):
    /// it must not be a protected file nor hold a SQLite database.
    /// - Throws: `Refusal` naming `name`.
    package static func check(descriptor: Int32, name: String, protecting: [String]) throws(Refusal) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return }
        try refuseProtected(status, name: name, protecting: protecting)
        guard isRegular(status) else { return }
        // Read the header through a fresh descriptor when the one given is write-only.
        let readable = open("/proc/self/fd/\(descriptor)", O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard readable >= 0 else { return }
        defer { close(readable) }
        var again = stat()
        guard fstat(readable, &again) == 0, again.st_dev == status.st_dev, again.st_ino == status.st_ino else { return }
        try refuseDatabase(readable, name: name)
    }

    /// The files a path stands for: itself and its SQLite companions.
    package static func companions(of path: String) -> [String] {
        [path, path + "-wal", path + "-shm", path + "-journal"]
    }

    /// The file a write to `path` creates or replaces: `path` itself, or, when `path` is a
    /// symbolic link (or a chain of them), the file it points to, which need not exist yet.
    /// Every writer that renames a finished file into place writes there, so that a link
    /// stays a link and its target gets the file, whether that target exists or not (a
    /// rename onto the link itself would replace the link; a `link(2)` onto it fails).
    ///
    /// Relative links are read from the folder that holds them.
    /// - Throws: `Refusal` when the links loop, cannot be read, or lead into a folder that
    ///   does not exist, naming the link, where it points and what to do.
    package static func writtenPath(_ path: String) throws(Refusal) -> String {
        let target = try linkTarget(of: path)
        guard target != path else { return path }
        var status = stat()
        guard lstat(target, &status) != 0 else { return target }
        let folder = (target as NSString).deletingLastPathComponent
        var folderStatus = stat()
        if stat(folder.isEmpty ? "." : folder, &folderStatus) != 0 || folderStatus.st_mode & S_IFMT != S_IFDIR {
            throw Refusal(
                description:
                    "\(path) is a symbolic link to \(target), whose folder \(folder) does not exist; create that "
                    + "folder, or remove the link (rm \(ShellQuoting.quoted(path))) to write a new file in its place")
        }
        return target
    }

    /// The file `path` names once every symbolic link on the way is followed (relative
    /// links from the folder that holds them); `path` itself when it is not a link or does
    /// not exist. The target need not exist (a dangling link names where a new file goes).
    /// - Throws: `Refusal` when a link cannot be read or the links loop.
    package static func linkTarget(of path: String) throws(Refusal) -> String {
        var current = path
        for _ in 0..<40 {
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let length = readlink(current, &buffer, buffer.count - 1)
            guard length >= 0 else {
                throw Refusal(
                    description: "cannot read the symbolic link \(current): \(String(cString: strerror(errno)))")
            }
            let target = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("/") {
                current = target
            } else {
                let folder = (current as NSString).deletingLastPathComponent
                current = folder.isEmpty ? target : folder + "/" + target
            }
        }
        throw Refusal(
            description:
                "\(path) is a loop of symbolic links; point it at a file (ls -l shows where it leads), or remove it")
    }

    /// The descriptor a path names by convention, if it does.
    private static func descriptorNumber(_ path: String) -> Int32? {
        switch path {
        case "/dev/stdin": return 0
        case "/dev/stdout": return 1
        case "/dev/stderr": return 2
        default:
            for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
                return Int32(path.dropFirst(prefix.count))
            }
            return nil
        }
    }

    /// Refuses a path whose name is a companion (`-wal`, `-shm`, `-journal`) of a protected
    /// file, by its given or its real path, or of any SQLite database beside it.
    package static func refuseCompanionName(_ path: String, protecting: [String]) throws(Refusal) {
        guard let target = canonical(path) else { return }
        for protected in protecting {
            let bases = Set([canonical(protected), resolved(protected)].compactMap { $0 })
            for base in bases where companions(of: base).contains(target) {
                throw Refusal(
                    description:
                        "refusing to write \(path): it is \(target == base ? protected : "a part of the database \(protected)"), "
                        + "which this command reads; writing it would destroy it; choose another file")
            }
        }
        for suffix in ["-wal", "-shm", "-journal"] where target.hasSuffix(suffix) {
            let database = String(target.dropLast(suffix.count))
            let descriptor = open(database, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var header = [UInt8](repeating: 0, count: 16)
            let count = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 16, 0) }
            if count == 16, header == Array("SQLite format 3\0".utf8) {
                throw Refusal(
                    description:
                        "refusing to write \(path): SQLite would take it for the \(suffix) file of the database "
                        + "\(database); choose another name")
            }
        }
    }

    /// `path` with its folder's symbolic links resolved (and the file's own, when it exists).
    private static func canonical(_ path: String) -> String? {
        if let full = resolved(path) { return full }
        // Split by hand: Foundation's `deletingLastPathComponent` crashed (an illegal
        // instruction) on some strings, "-" among them (hostile round 13: `shelf copy a.sqlite -`).
        guard let slash = path.lastIndex(of: "/") else { return resolved(".").map { $0 + "/" + path } }
        let folder = path[..<slash]
        guard let real = resolved(folder.isEmpty ? "/" : String(folder)) else { return nil }
        return real + "/" + path[path.index(after: slash)...]
    }

    private static func resolved(_ path: String) -> String? {
        realpath(path, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        }
    }

    private static func isRegular(_ status: stat) -> Bool {
        status.st_mode & S_IFMT == S_IFREG
    }

    private static func refuseProtected(_ status: stat, name: String, protecting: [String]) throws(Refusal) {
        for protected in protecting {
            for (index, candidate) in companions(of: protected).enumerated() {
                var other = stat()
                guard stat(candidate, &other) == 0, other.st_dev == status.st_dev, other.st_ino == status.st_ino
                else { continue }
                let what = index == 0 ? protected : "\(candidate), part of the database \(protected)"
                throw Refusal(
                    description:
                        "refusing to write \(name): it is \(what), which this command reads; "
                        + "writing it would destroy it; choose another file")
            }
        }
    }

    /// Refuses a regular file whose first bytes are a SQLite database, WAL or journal.
    private static func refuseDatabase(_ descriptor: Int32, name: String) throws(Refusal) {
        var header = [UInt8](repeating: 0, count: 16)
        let count = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 16, 0) }
        guard count > 0 else { return }
        let bytes = header.prefix(count)
        let kind: String?
        if bytes.starts(with: Array("SQLite format 3\0".utf8)) && count == 16 {
            kind = "a SQLite database"
        } else if bytes.starts(with: [0x37, 0x7F, 0x06, 0x82]) || bytes.starts(with: [0x37, 0x7F, 0x06, 0x83]) {
            kind = "a SQLite write-ahead log"
        } else if bytes.starts(with: [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]) {
            kind = "a SQLite journal"
        } else {
            kind = nil
        }
        guard let kind else { return }
        throw Refusal(
            description:
                "refusing to write \(name): it is \(kind), and writing would destroy it; "
                + "choose another file (or delete it first if it is really not needed)")
    }
}
