import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Watching a child process from /proc, for tests that signal a command at a given moment.
enum ProcessWatch {
    /// True when the process `pid` has ended (a zombie, not yet waited for) or is gone.
    static func hasExited(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    /// Waits (up to 60 s) until the process `pid` has `path` open. It waits on a thread of its
    /// own: the suite's other tests may hold both of the test process's task threads with waits
    /// for their children, which made a `Task.sleep` poll miss its deadline under a full run.
    static func waitUntil(_ pid: pid_t, holds path: String) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: pollUntil(pid, holds: path))
            }
        }
    }

    private static func pollUntil(_ pid: pid_t, holds path: String) -> Bool {
        let deadline = ContinuousClock.now + .seconds(180)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        while ContinuousClock.now < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")) ?? []
            for name in names {
                let count = readlink("/proc/\(pid)/fd/\(name)", &buffer, buffer.count - 1)
                guard count > 0 else { continue }
                let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if target == path { return true }
            }
            usleep(20_000)
        }
        return false
    }
}
