#if os(Linux)
    internal import Foundation
    internal import Glibc

    /// The Linux `FileWatcher`: calls `onChange` when the database file or its WAL is written,
    /// by any process.
    ///
    /// Uses inotify on the database's folder (the WAL file comes and goes) and a thread that
    /// blocks in `poll(2)`: no CPU while nothing happens. Events arriving together are reported
    /// once. `stop()` wakes and ends the thread.
    final class InotifyFileWatcher: FileWatcher {
        private let stopPipe: (read: Int32, write: Int32)

        init?(databasePath: String, onChange: @escaping @Sendable () -> Void) {
            let url = URL(fileURLWithPath: databasePath)
            let folder = url.deletingLastPathComponent().path
            let name = url.lastPathComponent
            let names: Set<String> = [name, name + "-wal", name + "-journal"]
            let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
            guard inotify >= 0 else { return nil }
            // Deletions and moves matter too: the tracker then checks that the path still names
            // the file it opened.
            let mask = UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM)
            guard inotify_add_watch(inotify, folder, mask) >= 0 else {
                close(inotify)
                return nil
            }
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else {
                close(inotify)
                return nil
            }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            self.stopPipe = (fds[0], fds[1])
            let stopRead = fds[0]
            let thread = Thread {
                Self.run(inotify: inotify, stop: stopRead, names: names, onChange: onChange)
                close(inotify)
                close(stopRead)
            }
            thread.name = "shelf.file-watcher"
            thread.start()
        }

        func stop() {
            var byte: UInt8 = 1
            _ = write(stopPipe.write, &byte, 1)
            close(stopPipe.write)
        }

        /// The longest the watcher waits for a burst of events to end before it reports.
        static let longestWait: Duration = .milliseconds(5)

        private static func run(inotify: Int32, stop: Int32, names: Set<String>, onChange: @Sendable () -> Void) {
            var fds = [
                pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stop, events: Int16(POLLIN), revents: 0),
            ]
            var stopOnly = [pollfd(fd: stop, events: Int16(POLLIN), revents: 0)]
            let bufferSize = 64 * 1024
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferSize, alignment: 8)
            defer { buffer.deallocate() }
            while true {
                let ready = poll(&fds, 2, -1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    return
                }
                if fds[1].revents != 0 { return }
                guard fds[0].revents != 0 else { continue }
                var relevant = false
                // A commit is several writes (WAL frames, then the commit frame). Let the burst
                // finish (a millisecond, sleeping: no wake-up per event), drain every queued event
                // and report once; go round again only while events are still arriving, for at
                // most `longestWait`. Events after the report make another one; the tracker looks
                // again by itself while another process holds the write lock.
                let deadline = ContinuousClock.now + longestWait
                repeat {
                    if poll(&stopOnly, 1, 1) > 0 { return }
                    relevant = drain(inotify, buffer, bufferSize, names) || relevant
                } while poll(&fds, 2, 0) > 0 && fds[1].revents == 0 && ContinuousClock.now < deadline
                if fds[1].revents != 0 { return }
                relevant = drain(inotify, buffer, bufferSize, names) || relevant
                if relevant { onChange() }
            }
        }

        /// Reads every queued event; true when one concerns the database files.
        private static func drain(
            _ inotify: Int32, _ buffer: UnsafeMutableRawPointer, _ bufferSize: Int, _ names: Set<String>
        )
            -> Bool
        {
            var relevant = false
            while true {
                let count = read(inotify, buffer, bufferSize)
                if count <= 0 { break }
                var offset = 0
                while offset + MemoryLayout<inotify_event>.size <= count {
                    let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                    let nameStart = offset + MemoryLayout<inotify_event>.size
                    if event.len > 0 {
                        let name = String(cString: buffer.advanced(by: nameStart).assumingMemoryBound(to: CChar.self))
                        if names.contains(name) { relevant = true }
                    }
                    offset = nameStart + Int(event.len)
                }
            }
            return relevant
        }
    }
#endif
