// swift-tools-version: 6.1
import PackageDescription

// Side-by-side figures: Shelf's public API against the raw SQLite C API (and the sqlite3
// shell) on the same work, in one run. Not built by CI:
//   swift run -c release --package-path Benchmarks shelf-benchmarks store [--json]
let package = Package(
    name: "ShelfBenchmarks",
    dependencies: [
        // The PostgreSQL trait builds ShelfPostgres (and the shelf binary with postgres:// support);
        // postgres-nio, the root package's version, runs the hand-written PostgreSQL baselines.
        // The Server trait builds `shelf serve` for the serve suite.
        .package(name: "Shelf", path: "..", traits: ["PostgreSQL", "Server"]),
        .package(url: "https://github.com/vapor/postgres-nio", exact: "1.33.2"),
        // The serve suite's floor (a route answering bytes from memory) and its live clients.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .systemLibrary(name: "BaselineSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "shelf-benchmarks",
            dependencies: [
                .product(name: "ShelfStore", package: "Shelf"),
                .product(name: "ShelfSQLiteBackend", package: "Shelf"),
                .product(name: "ShelfReactive", package: "Shelf"),
                .product(name: "ShelfTerminal", package: "Shelf"),
                .product(name: "ShelfPresentation", package: "Shelf"),
                .product(name: "ShelfPostgres", package: "Shelf"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                // Built so that `shelf-benchmarks browser` can run the release binary.
                .product(name: "shelf", package: "Shelf"),
                "BaselineSQLite",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
