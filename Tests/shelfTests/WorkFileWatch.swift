import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Catching a running command while its work file exists.
enum WorkFileWatch {
    /// Sends SIGSTOP to `pid` as soon as a file whose name starts with `prefix` shows in
    /// `folder` (polled on a thread of its own, not the test's task, which a loaded machine can
    /// hold off the CPU for longer than a copy takes; up to `limit`); false when none showed
    /// while the process ran.
    static func stopOnceAFileAppears(
        in folder: String, prefix: String, pid: pid_t, within limit: TimeInterval = 120
    ) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let deadline = Date().addingTimeInterval(limit)
                while Date() < deadline {
                    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                    if names.contains(where: { $0.hasPrefix(prefix) }) {
                        kill(pid, SIGSTOP)
                        continuation.resume(returning: true)
                        return
                    }
                    if ProcessWatch.hasExited(pid) { break }
                }
                continuation.resume(returning: false)
            }
        }
    }
}
