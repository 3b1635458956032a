import ArgumentParser
import Foundation
import ShelfSQLiteBackend
import ShelfStore

struct CopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy", abstract: "Copy a whole store to another location (SQLite or PostgreSQL, either way).",
        discussion: """
            Users, items and saved views go across with their IDs, versions, times and text byte for \
            byte; the target's sequences are left past every copied ID and its search index covers \
            every item. FROM is read from one snapshot while other processes go on writing to it.

            TO must be empty: a new file, an empty database, or one `shelf migrate` just made. \
            --replace replaces what it holds instead, and is refused while another process has TO open.

            All or nothing: the rows are written in one transaction of TO; a failure, a lost \
            connection or Ctrl-C leaves TO as it was. Before committing, the copy reads TO back: the \
            row counts and a fingerprint (SHA-256 over every copied column) of both sides are printed, \
            and when they differ nothing is committed and the exit status is 1.

            Locations are written as for --db: a path (or sqlite:PATH), or \
            postgres://USER:PASSWORD@HOST:PORT/DATABASE.
            """)

    @Argument(help: ArgumentHelp("The store to copy.", valueName: "from"))
    var from: String

    @Argument(help: ArgumentHelp("Where to copy it.", valueName: "to"))
    var to: String

    @Flag(help: "Replace what TO holds (refused while another process has it open).")
    var replace = false

    @Flag(help: "Log what the stores do on standard error.")
    var verbose = false

    func validate() throws {
        if to == "-" || from == "-" {
            throw ValidationError(
                "a copy cannot \(to == "-" ? "go to" : "come from") standard input or output ('-'): each side is "
                    + "a store; give a SQLite file (NEW.sqlite) or a postgres:// URL, or use shelf export and "
                    + "shelf import to move rows through a pipe")
        }
    }

    func run() async throws {
        try LogSetup.start(verbose: verbose)
        // The counts go to stdout once the copy is committed: a closed stdout is refused now,
        // not after a copy that is in place but reported as failed.
        try StandardOutput.checkOpen()
        let source = try StoreLocation(parsing: from)
        let target = try StoreLocation(parsing: to)
        if case .sqlite(let path) = source, !FileManager.default.fileExists(atPath: path) {
            throw CommandError("no database at \(path) to copy from; check the first location")
        }
        // Where a new file goes: a symbolic link is written through, as every file shelf writes
        // (`OutputSafety.writtenPath`): the link stays, its target gets the copy.
        var newFile: String?
        if case .sqlite(let path) = target {
            let written: String
            do {
                written = try OutputSafety.writtenPath(path)
            } catch {
                throw CommandError(error.description + "; nothing was copied")
            }
            // The source's own -wal, -shm or -journal (or any SQLite database's): SQLite would take
            // the copy for part of that database, and remove or replay it (seen: "Copied", then
            // the copy gone).
            var sourcePaths: [String] = []
            // The source itself is refused below, as the same database, by its identity.
            if case .sqlite(let from) = source, !Self.sameFile(from, path) { sourcePaths = [from] }
            do {
                for candidate in Set([path, written]) {
                    try OutputSafety.refuseCompanionName(candidate, protecting: sourcePaths)
                }
            } catch {
                throw CommandError(
                    error.description.replacingOccurrences(of: "refusing to write", with: "refusing to copy into"))
            }
            var status = stat()
            if lstat(written, &status) != 0 { newFile = written }
        }
        let sourceStore = try await Self.open(source, as: "FROM", from)
        if let newFile, case .sqlite(let path) = target {
            try await copy(from: sourceStore, intoNewFile: newFile, shownAs: path)
            return
        }
        let targetStore = try await Self.open(target, as: "TO", to)
        let report = try await copy(from: sourceStore, into: targetStore, shownAs: targetStore.location)
        // Committed when both sides match: a signal from now on must not say it was stopped.
        if report.matches { SignalRelay.shared.workIsFinal() }
        try finish(report, from: sourceStore, shownAs: targetStore.location)
    }

    /// Opens one side of the copy; a store that cannot be opened is named as the side it is,
    /// with advice for this command (the library's hint names --db, which copy has not).
    private static func open(_ location: StoreLocation, as side: String, _ given: String) async throws -> Store {
        do {
            return try await OpenDatabases.open(location)
        } catch let error as StoreError where error.hint != nil {
            let advice =
                side == "TO"
                ? "TO must be a new file or an empty database, or with --replace a shelf to replace"
                : "FROM must be a shelf store"
            throw CommandError("\(error.message); nothing was copied: \(advice)")
        }
    }

    /// Whether both paths name one existing file (by device and inode).
    private static func sameFile(_ one: String, _ other: String) -> Bool {
        var first = stat()
        var second = stat()
        return stat(one, &first) == 0 && stat(other, &second) == 0 && first.st_dev == second.st_dev
            && first.st_ino == second.st_ino
    }

    /// A copy into a SQLite file that does not exist yet, at `path` (where the user's `name`
    /// leads, through any symbolic link): made in a hidden file beside it, and linked into
    /// place once committed and closed, so a copy that fails or is interrupted leaves no file
    /// at all. The counts are printed once the file is in place.
    private func copy(from source: Store, intoNewFile path: String, shownAs name: String) async throws {
        let folder =
            (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        // Claimed while it exists (see `WorkFile`), so that the next copy into any file of this
        // folder, or open of a store in it, removes what a killed copy left (they piled up, tens
        // of MB each; only a copy into the same name did, issue 25 F9) and never a live one's.
        OpenDatabases.sayRemoved(WorkFile.removeAbandonedCopies(in: folder))
        let temporary = folder + "/" + WorkFile.copyPrefix(of: path) + UUID().uuidString
        guard let claim = WorkFile.create(temporary) else {
            throw CommandError(Self.cannotWrite(name, at: path, errno))
        }
        // Runs after the removal below: the claim ends once the file is gone.
        defer { close(claim) }
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(temporary + suffix) } }
        // A SQLite store with this build's schema is copied page by page (a backup of its
        // snapshot, then both sides read back); anything else row by row.
        let notMade = "\(name) was not made (the unfinished copy was removed)"
        let paged = try await copying(shownAs: name, target: temporary, leaving: notMade) { progress in
            try await source.copyPages(intoNewFile: temporary, progress: progress)
        }
        let report: CopyReport
        if let paged {
            report = paged
        } else {
            let target: Store
            do {
                target = try OpenDatabases.open(temporary)
            } catch let error as StoreError {
                throw CommandError(Self.failure(error, target: temporary, shownAs: name))
            }
            do {
                report = try await copy(from: source, into: target, shownAs: name, leaving: notMade)
            } catch {
                await target.close()
                throw error
            }
            // Closed, its WAL is merged into the file and removed: the whole file moves into place.
            await target.close()
        }
        guard report.matches else { return try finish(report, from: source, shownAs: name) }
        // A copy whose -wal could not be merged (a full disk) is not finished: the work file
        // alone is not the copy. It goes with the `defer` above, so nothing is left; say that,
        // not a warning about a -wal that is removed by then (issue 25, F7).
        if let unmerged = Store.unmergedCopyWAL(path: temporary) {
            throw CommandError(Self.unfinished(unmerged, shownAs: name, at: path))
        }
        // A signal that came once the rows were written: not linked, as the message says.
        if Task.isCancelled {
            printError("Interrupted: nothing was copied; \(notMade).")
            throw CancellationError()
        }
        // A link, not a rename: rename would replace a file that another process (a second
        // copy into the same new path) made meanwhile, silently. The temporary name goes with
        // the `defer` above.
        if link(temporary, path) == 0 {
            // In place: a signal from now on must not make the exit status say it was stopped.
            SignalRelay.shared.workIsFinal()
            Self.noteRepairs(report, of: source.location, shownAs: name)
            return try finish(report, from: source, shownAs: name)
        }
        let failure = errno
        if failure == EEXIST {
            throw CommandError(
                "\(path) was made by another process while this copy ran (another copy into the same new file?); "
                    + "nothing of this copy was written there. Check what it holds, and copy into it with --replace "
                    + "only if you mean to replace it")
        }
        // A file system without hard links: the rename is all there is.
        guard failure == EPERM || failure == ENOTSUP || failure == EOPNOTSUPP, rename(temporary, path) == 0 else {
            throw CommandError(
                "cannot move the copy into place at \(path): \(String(cString: strerror(errno))); nothing was copied")
        }
        SignalRelay.shared.workIsFinal()
        Self.noteRepairs(report, of: source.location, shownAs: name)
        try finish(report, from: source, shownAs: name)
    }

    /// The message of a copy into a new file whose `-wal` could not be merged into it
    /// (`Store.unmergedCopyWAL`): what happened, that no file was made, and what to do.
    private static func unfinished(
        _ unmerged: (reason: String, full: (free: Int, wal: Int)?), shownAs name: String, at path: String
    ) -> String {
        let folder =
            (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let outcome = "nothing was copied: \(name) was not made, and the unfinished copy was removed"
        guard let full = unmerged.full else {
            return "the copy into \(name) was written but could not be finished: merging its write-ahead log into "
                + "the file failed (\(unmerged.reason)); \(outcome). Check the disk holding \(folder), then copy again"
        }
        let megabytes = { (bytes: Int) in (bytes + (1 << 20) - 1) >> 20 }
        return "the disk holding \(name) is full: the copy was written, but merging its write-ahead log "
            + "(\(megabytes(full.wal)) MB) into the file needs room the disk does not have (\(megabytes(full.free)) MB "
            + "free); \(outcome). Free at least \(megabytes(full.wal)) MB more in \(folder), or copy to another disk"
    }

    /// Says, on standard error, which search indexes of the copy were built again because the
    /// source's were damaged (carried page by page as they were), and how to mend the source's.
    private static func noteRepairs(_ report: CopyReport, of source: String, shownAs name: String) {
        guard !report.searchIndexRepairs.isEmpty else { return }
        let found = report.searchIndexRepairs.map { "\($0.index): \($0.problem)" }.joined(separator: "; ")
        let rebuild = report.searchIndexRepairs.map {
            "INSERT INTO \($0.index) (\($0.index)) VALUES ('rebuild');"
        }.joined(separator: " ")
        printError(
            "Note: the search index of \(source) is damaged (\(found)); the copy's was built again from its rows, so "
                + "a search of \(name) finds every item. \(source)'s stays damaged until it is built again: "
                + "sqlite3 \(ShellQuoting.quoted(source)) \"\(rebuild)\" does")
    }

    /// Why the copy cannot be written beside `path` (errno `code`), and what to do.
    private static func cannotWrite(_ name: String, at path: String, _ code: Int32) -> String {
        let folder =
            (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        let advice =
            switch code {
            case ENOSPC, EDQUOT: "the disk holding \(folder) is full; free space there or copy to another disk"
            case EACCES, EPERM, EROFS: "the folder \(folder) is not writable; copy into a folder you may write"
            case ENOENT, ENOTDIR: "the folder \(folder) does not exist; create it or copy into another folder"
            default: "check that the folder \(folder) exists, is writable and has room"
            }
        let shown = name == path ? name : "\(name) (which leads to \(path))"
        return "cannot write the copy \(shown): \(String(cString: strerror(code))); \(advice); nothing was copied"
    }

    /// Copies `source` into `target`, with a progress bar on a terminal; returns both sides'
    /// counts and fingerprints (when they differ, nothing was committed).
    private func copy(
        from source: Store, into target: Store, shownAs name: String, leaving outcome: String? = nil
    ) async throws -> CopyReport {
        try await copying(shownAs: name, target: target.location, leaving: outcome) { progress in
            try await source.copy(to: target, options: CopyOptions(replace: replace), progress: progress)
        }
    }

    /// Runs `body`, a copy into `location` (shown as `name`), with a progress bar on a
    /// terminal; its failures are said as the copy's. `outcome` is what an interrupted copy
    /// leaves, when not "`name` is as it was" (a new file: it was not made).
    private func copying<T>(
        shownAs name: String, target location: String, leaving outcome: String? = nil,
        _ body: (@escaping @Sendable (CopyProgress) -> Void) async throws -> T
    ) async throws -> T {
        let progress = ProgressLine(total: 0, label: "Copying")
        let result: T
        do {
            result = try await body { progress.show($0) }
            progress.finish()
        } catch let error where error is CancellationError || Task.isCancelled {
            progress.finish()
            printError("Interrupted: nothing was copied; \(outcome ?? "\(name) is as it was").")
            throw CancellationError()
        } catch let error as StoreError {
            progress.finish()
            throw CommandError(Self.failure(error, target: location, shownAs: name))
        } catch {
            progress.finish()
            throw error
        }
        return result
    }

    /// Prints both sides' counts and fingerprints; throws when they differ.
    private func finish(_ report: CopyReport, from source: Store, shownAs name: String) throws {
        try StandardOutput.write(Self.summary(report, from: source.location, to: name))
        guard report.matches else {
            throw CommandError(
                "\(name) read back differs from \(source.location) (see the counts and fingerprints above); "
                    + "nothing was committed and it is as it was")
        }
    }

    /// The message of a copy that failed with `error`: the target named as the user wrote it,
    /// and the outcome said once. A library message that already says what was not done
    /// ("nothing was written", as a lock wait's does) gets the copy's outcome in its place;
    /// others get it at the end. A conflict (another session wrote the target meanwhile) says
    /// its own outcome: the target is not as it was, though nothing of this copy is in it.
    static func failure(_ error: StoreError, target location: String, shownAs name: String) -> String {
        let message = error.message.replacingOccurrences(of: location, with: name)
        guard error.code != .conflict else { return message }
        let outcome = "nothing was copied: \(name) is as it was"
        if error.isDiskFull {
            // SQLite's words name neither the file nor the disk (and may quote an index's SQL).
            return "the disk holding \(name) is full (SQLite: database or disk is full); free space there, or copy "
                + "to another disk; \(outcome)"
        }
        // "nothing was written to TO" first: the outcome names TO already (it said
        // "…is as it was to TO", TO twice, when only "nothing was written" was replaced).
        for said in ["nothing was written to \(name)", "nothing was written", "nothing was read"] {
            if let range = message.range(of: said) { return message.replacingCharacters(in: range, with: outcome) }
        }
        return message + "; " + outcome
    }

    /// The lines printed at the end: each side's row counts and fingerprint.
    static func summary(_ report: CopyReport, from: String, to: String) -> String {
        func line(_ name: String, _ location: String, _ side: CopyReport.Side) -> String {
            let counts = side.counts.map { "\($0.table) \($0.rows)" }.joined(separator: ", ")
            return "\(name)  \(counts)  fingerprint \(side.fingerprint)  \(Sanitized(location))\n"
        }
        return line("source", from, report.source) + line("target", to, report.target)
            + (report.matches ? "Copied: both sides match.\n" : "")
    }
}
