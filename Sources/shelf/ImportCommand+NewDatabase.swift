import Foundation
import ShelfStore

/// The SQLite database an import creates: filled in a scratch store first and put in place
/// only when the import succeeds, so a failed import, a dry run or an interrupted one leaves
/// nothing at a mistyped `--db` path (not even its folder).
struct NewDatabase {
    /// Where the database goes.
    let path: String
    /// The scratch store's folder, removed by `discard()`.
    private let scratch: String
    let store: Store

    /// A scratch store for the database `path`, which does not exist: in a hidden folder beside
    /// it when its folder exists (the copy is then renamed on the same file system), else in
    /// the temporary folder.
    init(path: String) throws {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        var isFolder: ObjCBool = false
        let parent =
            FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isFolder)
                && isFolder.boolValue ? (folder.isEmpty ? "." : folder) : NSTemporaryDirectory()
        scratch = parent + "/.shelf-import-\(UUID().uuidString)"
        do {
            store = try OpenDatabases.open(scratch + "/new.sqlite")
        } catch {
            try? FileManager.default.removeItem(atPath: scratch)
            throw error
        }
    }

    /// Puts a copy of the scratch store at `path` (creating its folder), unless something
    /// appeared there meanwhile: then nothing is changed and the error says so.
    func install() async throws {
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw CommandError(
                    "cannot create the folder \(folder) for the new database \(path): \(error.localizedDescription); "
                        + "nothing was imported")
            }
        }
        let copy =
            (folder.isEmpty ? "." : folder) + "/.\((path as NSString).lastPathComponent).new-\(UUID().uuidString)"
        defer { unlink(copy) }
        try await store.backup(to: copy)
        // link(2) never replaces: a database another process created meanwhile stays as it is.
        guard link(copy, path) == 0 else {
            let reason = errno == EEXIST ? "another process created it meanwhile" : String(cString: strerror(errno))
            throw CommandError("cannot create the database \(path): \(reason); nothing was imported. Import again")
        }
    }

    /// Removes the scratch store.
    func discard() {
        try? FileManager.default.removeItem(atPath: scratch)
    }
}
