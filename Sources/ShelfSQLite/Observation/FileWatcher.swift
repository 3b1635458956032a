/// Tells the change tracker that the database file or its WAL was written, deleted or
/// replaced, by any process: the platform seam of change tracking.
///
/// Linux uses inotify (`InotifyFileWatcher`); Apple platforms use a dispatch source per file
/// and one on the folder (`DispatchFileWatcher`, kqueue underneath). Where neither exists,
/// `make` returns nil and the tracker relies on its periodic `data_version` check alone.
protocol FileWatcher: Sendable {
    /// Ends the watching; no `onChange` call starts after it returns.
    func stop()
}

/// The file watcher of this platform for `databasePath`, or nil when it cannot watch.
func makeFileWatcher(databasePath: String, onChange: @escaping @Sendable () -> Void) -> (any FileWatcher)? {
    #if os(Linux)
        InotifyFileWatcher(databasePath: databasePath, onChange: onChange)
    #elseif canImport(Darwin)
        DispatchFileWatcher(databasePath: databasePath, onChange: onChange)
    #else
        nil
    #endif
}
