internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#endif

/// The hidden files a command writes beside its target before renaming them into place (an
/// export's `.NAME.partial-…`, a backup's `.NAME.backup-…`), and their cleanup after a
/// `kill -9` left some behind.
///
/// **Why a lock proves a file abandoned.** The process that makes such a file holds an
/// exclusive `flock` on it (on a descriptor of its own) from the moment it exists until it
/// is renamed or removed. The kernel drops that lock when the process ends, however it ends.
/// So a file whose lock can be taken belongs to no live process, and may go; a file whose
/// lock is held is in use, and stays. (`flock` locks are apart from the POSIX locks SQLite
/// uses: taking one never touches SQLite's.) Every work file is made through `create`, which
/// claims it before it has its name, so no cleanup ever sees a live process's file unclaimed:
/// the lock alone tells, whatever the file's age, and a run right after a `kill -9` removes
/// what the killed one left (an age limit of 5 s left them to a later run, the hostile
/// tester's finding in issue 25).
package enum WorkFile {
    /// Claims the work file open on `descriptor` for this process (an exclusive `flock`,
    /// held until the descriptor is closed). Returns false when another process holds it.
    @discardableResult
    package static func claim(_ descriptor: Int32) -> Bool {
        flock(descriptor, LOCK_EX | LOCK_NB) == 0
    }

    /// The work file of a backup to `path`, beside it: what earlier backups killed before
    /// their rename left is removed first, then a new, empty file is made and claimed (see
    /// `create`). Returns its path and the descriptor holding the claim (for the caller to
    /// close, as `create` says). Throws a `StoreError` naming `name` (what the user gave;
    /// `path` by default) when it cannot be made.
    package static func claimBackup(
        of path: String, shownAs name: String? = nil
    ) throws -> (path: String, claim: Int32) {
        let folder = (path as NSString).deletingLastPathComponent
        let prefix = ".\((path as NSString).lastPathComponent).backup-"
        removeAbandoned(in: folder, prefix: prefix)
        let temporary = (folder.isEmpty ? "." : folder) + "/" + prefix + UUID().uuidString
        guard let claim = create(temporary) else {
            throw StoreError(
                .database,
                "cannot write the backup \(name ?? path): \(String(cString: strerror(errno))); check that its folder exists, "
                    + "is writable and has room")
        }
        return (temporary, claim)
    }

    /// Creates the work file at `path` (it must not exist) and claims it. Returns the
    /// descriptor that holds the claim, or nil when the file cannot be created. Its mode is
    /// what a new file of the user's gets (0666 less the umask: 0644 under the usual 022, as
    /// `sqlite3` makes a database), since it becomes the copy or backup the user asked for;
    /// SQLite gives its `-wal` and `-shm` the same mode. The caller
    /// closes it once the file is renamed or removed, and after SQLite has closed the file
    /// when SQLite writes it: closing any descriptor of a file drops this process's POSIX
    /// locks on it, which would be SQLite's.
    package static func create(_ path: String) -> Int32? {
        // Made under a name no cleaner looks at, claimed, and only then linked to its own
        // name (`link` fails when that exists, as O_EXCL would): a run that sees the work
        // file always finds it claimed. Made at its name directly, a process stopped between
        // creating and claiming it lost its file to another run (AbandonedWorkFileTests).
        let folder = (path as NSString).deletingLastPathComponent
        let staging = (folder.isEmpty ? "." : folder) + "/.shelf-claiming-\(UUID().uuidString)"
        let descriptor = open(staging, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return nil }
        claim(descriptor)
        let linked = link(staging, path) == 0
        unlink(staging)
        guard linked else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// Removes the files in `folder` whose names start with `prefix` that no live process
    /// claims (see above), with their SQLite companions (`-wal`, `-shm`, `-journal`). Returns the names removed. Errors are
    /// ignored: a file that cannot be checked or removed stays.
    @discardableResult
    package static func removeAbandoned(in folder: String, prefix: String) -> [String] {
        removeAbandoned(in: folder) { $0.hasPrefix(prefix) }
    }

    /// The name a copy into a new file `.NAME.copy-UUID` gives its work file beside the
    /// target `NAME` (`copyPrefix(of:)` and a UUID).
    package static func isCopyWorkFile(_ name: String) -> Bool {
        isWorkFile(name, marker: ".copy-")
    }

    /// `.NAME` + `marker` + a UUID, for a `NAME` of at least one character.
    private static func isWorkFile(_ name: String, marker: String) -> Bool {
        guard name.hasPrefix("."), let found = name.range(of: marker, options: .backwards),
            found.lowerBound > name.index(after: name.startIndex)
        else { return false }
        return UUID(uuidString: String(name[found.upperBound...])) != nil
    }

    /// What a copy into a new file at `path` names its work files: `.NAME.copy-`, then a UUID.
    package static func copyPrefix(of path: String) -> String {
        ".\((path as NSString).lastPathComponent).copy-"
    }

    /// Removes the work files of copies (`isCopyWorkFile`) in `folder`, whatever their
    /// target, that no live process claims: what copies killed with `kill -9` left, tens or
    /// hundreds of MB each. A copy into any file of the folder and every open of a store in it
    /// call this, so such a file does not wait for a copy to the same name. Returns each
    /// removed file's path and size in bytes.
    package static func removeAbandonedCopies(in folder: String) -> [(path: String, bytes: Int)] {
        removeAbandonedWork(in: folder) { isCopyWorkFile($0) }
    }

    /// Removes the work files of the kept stores of PostgreSQL restores (`.NAME.keep-UUID`,
    /// what `restore` writes a store's old contents to before it names the file) in `folder`,
    /// whatever their name, that no live process claims. A kept file's name holds the time of
    /// its restore, so a restore killed with `kill -9` left one that no later restore, keeping
    /// under another name, would find by its own prefix (hostile round 14). Returns each
    /// removed file's path and size in bytes.
    package static func removeAbandonedKeeps(in folder: String) -> [(path: String, bytes: Int)] {
        removeAbandonedWork(in: folder) { isWorkFile($0, marker: ".keep-") }
    }

    /// The files `matches` accepts in `folder` that no live process claims, removed, with
    /// each one's path and size in bytes (its SQLite companions included).
    private static func removeAbandonedWork(
        in folder: String, where matches: (String) -> Bool
    ) -> [(path: String, bytes: Int)] {
        let folder = folder.isEmpty ? "." : folder
        var sizes: [String: Int] = [:]
        let removed = removeAbandoned(in: folder) { name in
            guard matches(name) else { return false }
            let path = folder + "/" + name
            var total = 0
            for suffix in ["", "-wal", "-shm", "-journal"] {
                var status = stat()
                if lstat(path + suffix, &status) == 0 { total += Int(status.st_size) }
            }
            sizes[name] = total
            return true
        }
        return removed.map { (folder + "/" + $0, sizes[$0] ?? 0) }
    }

    /// `removeAbandoned(in:prefix:)` for the names `matches` accepts (never a `-wal`, `-shm` or
    /// `-journal`: those go with their file).
    private static func removeAbandoned(in folder: String, where matches: (String) -> Bool) -> [String] {
        let folder = folder.isEmpty ? "." : folder
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var removed: [String] = []
        for name in names where matches(name) {
            guard !["-wal", "-shm", "-journal"].contains(where: { name.hasSuffix($0) }) else { continue }
            let path = folder + "/" + name
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { continue }
            let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard descriptor >= 0 else { continue }
            // Held while removing, so that nobody claims it meanwhile.
            if claim(descriptor) {
                for suffix in ["-wal", "-shm", "-journal"] { unlink(path + suffix) }
                if unlink(path) == 0 { removed.append(name) }
            }
            close(descriptor)
        }
        return removed
    }
}
