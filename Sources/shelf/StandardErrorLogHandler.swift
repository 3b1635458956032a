#if Server
    import Foundation
    import Logging
    import Synchronization

    /// The swift-log handler of `shelf serve`'s access log: one line per message on standard
    /// error, as swift-log's `StreamLogHandler` writes it (`TIME LEVEL LABEL: KEY=VALUE … [SOURCE]
    /// MESSAGE`), at a fraction of its cost per line.
    ///
    /// Why: under `wrk`, `StreamLogHandler` took most of the access log's share of the server's
    /// CPU (issue 24): it formats the time with `localtime` and `strftime` on every line, sorts
    /// and joins the metadata into a string again whenever a logger's metadata is set (which
    /// Hummingbird does for every request, to add its request ID), and writes through a locked
    /// `FILE`. Here the time's text is made once per second, metadata is only joined when a line
    /// is written, and each line is one `write(2)` of bytes assembled in one buffer.
    struct StandardErrorLogHandler: LogHandler {
        let label: String
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]

        init(label: String) { self.label = label }

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var line: [UInt8] = []
            line.reserveCapacity(160)
            line += LineClock.shared.text()
            line.append(UInt8(ascii: " "))
            line += event.level.rawValue.utf8
            if !label.isEmpty {
                line.append(UInt8(ascii: " "))
                line += label.utf8
            }
            line.append(UInt8(ascii: ":"))
            var merged = metadata
            if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
            if let error = event.error {
                merged["error.message"] = "\(error)"
                merged["error.type"] = "\(String(reflecting: type(of: error)))"
            }
            for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
                line.append(UInt8(ascii: " "))
                line += key.utf8
                line.append(UInt8(ascii: "="))
                line += value.description.utf8
            }
            line += " [".utf8
            line += event.source.utf8
            line += "] ".utf8
            line += event.message.description.utf8
            line.append(UInt8(ascii: "\n"))
            StandardErrorLines.write(line)
        }
    }

    /// Whole lines to standard error, one `write(2)` each (more while the descriptor takes part
    /// of one), under a lock so that lines of different threads never interleave. A line that
    /// cannot be written (standard error closed) is dropped, as `StreamLogHandler` drops it.
    enum StandardErrorLines {
        private static let lock = Mutex(())

        static func write(_ bytes: [UInt8]) {
            lock.withLock { _ in
                bytes.withUnsafeBytes { buffer in
                    guard let base = buffer.baseAddress else { return }
                    var offset = 0
                    while offset < buffer.count {
                        let written = Foundation.write(
                            STDERR_FILENO, base + offset, buffer.count - offset)
                        if written > 0 {
                            offset += written
                        } else if written < 0, errno == EINTR {
                            continue
                        } else {
                            return
                        }
                    }
                }
            }
        }
    }

    /// The local time as `StreamLogHandler` writes it (`2026-11-27T06:53:58+0000`), made once per
    /// second.
    final class LineClock: Sendable {
        static let shared = LineClock()
        private let cached = Mutex<(second: Int, text: [UInt8])>((-1, []))

        func text() -> [UInt8] {
            var now = time(nil)
            let second = Int(now)
            if let text = cached.withLock({ $0.second == second ? $0.text : nil }) { return text }
            var local = tm()
            guard localtime_r(&now, &local) != nil else { return Array("<unknown>".utf8) }
            var buffer = [Int8](repeating: 0, count: 64)
            let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
            let text = buffer[0..<count].map { UInt8(bitPattern: $0) }
            cached.withLock { $0 = (second, text) }
            return text
        }
    }
#endif
