#if canImport(Darwin)
    internal import Darwin
    internal import Dispatch
    internal import Foundation

    /// The Apple-platform `FileWatcher`: dispatch sources (kqueue) on the database's folder and on
    /// the database and WAL files.
    ///
    /// kqueue watches open files, not names: the folder's source learns that entries were
    /// created, deleted or renamed (the WAL comes and goes, a file can be replaced), and then the
    /// file sources are made again for whatever now has those names. Each event calls `onChange`;
    /// the change tracker coalesces them.
    ///
    /// Not compiled or tested on Linux, where `InotifyFileWatcher` is used.
    //
    // Why unchecked Sendable is safe: `sources` and `stopped` are read and written only on
    // `queue` (init does its setup there with queue.sync, the sources' handlers run there,
    // and stop() runs there synchronously); everything else is immutable after init.
    final class DispatchFileWatcher: FileWatcher, @unchecked Sendable {
        private let queue = DispatchQueue(label: "shelf.file-watcher")
        private let folder: String
        private let files: [String]
        private let onChange: @Sendable () -> Void
        private var sources: [String: any DispatchSourceFileSystemObject] = [:]
        private var stopped = false

        init?(databasePath: String, onChange: @escaping @Sendable () -> Void) {
            let url = URL(fileURLWithPath: databasePath)
            folder = url.deletingLastPathComponent().path
            files = [databasePath, databasePath + "-wal", databasePath + "-journal"]
            self.onChange = onChange
            let watching = queue.sync { () -> Bool in
                guard watch(folder, events: [.write, .rename, .delete]) else { return false }
                watchFiles()
                return true
            }
            guard watching else { return nil }
        }

        func stop() {
            queue.sync {
                stopped = true
                for source in sources.values { source.cancel() }
                sources.removeAll()
            }
        }

        /// Makes a source for each database file that exists and has none (on `queue`).
        private func watchFiles() {
            for file in files where sources[file] == nil {
                _ = watch(file, events: [.write, .extend, .delete, .rename])
            }
        }

        /// Watches `path` for `events`; false when it cannot be opened (on `queue`).
        private func watch(_ path: String, events: DispatchSource.FileSystemEvent) -> Bool {
            let descriptor = open(path, O_EVTONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return false }
            let source = DispatchSource.makeFileSystemObjectSource(
                fileDescriptor: descriptor, eventMask: events, queue: queue)
            source.setEventHandler { [weak self] in self?.handle(path, source.data) }
            source.setCancelHandler { close(descriptor) }
            sources[path] = source
            source.resume()
            return true
        }

        /// One event on `path` (on `queue`).
        private func handle(_ path: String, _ events: DispatchSource.FileSystemEvent) {
            guard !stopped else { return }
            if path != folder, !events.isDisjoint(with: [.delete, .rename]) {
                // The name no longer leads to this file: watch whatever has it next.
                sources.removeValue(forKey: path)?.cancel()
            }
            if path == folder { watchFiles() }
            onChange()
        }
    }
#endif
