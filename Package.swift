// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "btlens",
    // Synchronization's Atomic and Mutex, which threads and signal handlers share.
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "btlens", targets: ["btlens"]),
        .library(
            name: "BTLensKit",
            targets: [
                "BTLensCore", "BTLensCapture", "BTLensDissect", "BTLensDefinitions",
                "BTLensPipeline", "BTLensReport", "BTLensFilter", "BTLensAppLog",
            ]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // libpcap, through the system's headers; only BTLensCapture imports it.
        .systemLibrary(
            name: "CPcap", path: "Sources/CPcap",
            providers: [.apt(["libpcap-dev"]), .brew(["libpcap"])]),
        // zlib, for the compressed btsnooz summary in Android bugreports.
        .systemLibrary(
            name: "CBTLensZlib", path: "Sources/CBTLensZlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // PCRE2, Wireshark's engine for `matches`: every user regular expression, with a budget per match.
        .systemLibrary(
            name: "CPCRE2", path: "Sources/CPCRE2", pkgConfig: "libpcre2-8",
            providers: [.apt(["libpcre2-dev"]), .brew(["pcre2"])]),
        // The operating system's calls (Sources/BTLensCore/OS.swift), the heap's counters, and PCRE2.
        .target(name: "BTLensCore", dependencies: ["CHeapUsage", "CPCRE2"]),
        // A FILE over a pipe whose ftell counts what was read: record offsets of followed pcap streams.
        .target(name: "CCountingFile"),
        .target(
            name: "BTLensCapture",
            dependencies: [
                "BTLensCore", "CPcap", "CBTLensZlib", "CCountingFile",
            ]),
        // The Core specification's security functions (AES-CCM, the SMP key functions) over swift-crypto's AES.
        .target(
            name: "BTLensCrypto",
            dependencies: [
                "BTLensCore",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ]),
        .target(
            name: "BTLensDissect",
            dependencies: [
                "BTLensCore", "BTLensCapture", "BTLensCrypto",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]),
        // Dissectors/*.yaml: vendor protocols described in files, turned into MessageDissectors.
        .target(
            name: "BTLensDefinitions",
            dependencies: [
                "BTLensCore", "BTLensDissect",
                .product(name: "Yams", package: "Yams"),
            ],
            // The exported Wireshark plugin's Lua, compiled into the binary (PackageResources).
            resources: [.embedInCode("Lua/runtime.lua"), .embedInCode("Lua/iap2.lua")]),
        // Threads, relays, live input, folder runs and app logs merged in: how a capture flows through the analyzer.
        .target(
            name: "BTLensPipeline", dependencies: ["BTLensCore", "BTLensCapture", "BTLensDissect", "BTLensAppLog"]),
        // Display filters (--filter): the language, compiled once, over the events in the JSONL contract's names.
        .target(name: "BTLensFilter", dependencies: ["BTLensCore", "BTLensDissect"]),
        // App logs (logcat, log show, Xcode, an app's own logger) read line by line, the hex bytes in them,
        // and the parts that place them on a capture's timeline (its clock, a log's lane, the air matcher).
        .target(name: "BTLensAppLog", dependencies: ["BTLensCore", "BTLensDissect"]),
        // The live page (follow --serve, view): Hummingbird's HTTP and WebSocket, the page inside the binary.
        .target(
            name: "BTLensServe",
            dependencies: [
                "BTLensCore", "BTLensCapture", "BTLensDissect", "BTLensReport", "BTLensFilter",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [
                .embedInCode("Assets/index.html"), .embedInCode("Assets/app.js"), .embedInCode("Assets/app.css"),
            ]),
        // Many captures, one store: `btlens index` into SQLite (GRDB), `query`, and `export --dataset`.
        .target(
            name: "BTLensStore",
            dependencies: [
                "BTLensCore", "BTLensCapture", "BTLensDissect", "BTLensPipeline", "BTLensReport", "BTLensAppLog",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]),
        .target(
            name: "BTLensReport",
            dependencies: [
                "BTLensCore", "BTLensCapture", "BTLensDissect", "CBTLensZlib",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ]),
        .executableTarget(
            name: "btlens",
            dependencies: [
                "BTLensCore", "BTLensCapture", "BTLensDissect", "BTLensDefinitions", "BTLensPipeline", "BTLensReport",
                "BTLensFilter", "BTLensAppLog", "BTLensServe", "BTLensStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // Builds captures byte by byte for the tests and for Captures/.
        .target(
            name: "BTLensTestSupport",
            dependencies: [
                "BTLensCore", "BTLensCapture", "BTLensDissect", "BTLensCrypto", "CBTLensZlib",
                "ZIPFoundation",
            ]),
        .executableTarget(name: "btlens-samples", dependencies: ["BTLensTestSupport"]),
        // Fuzz targets: every entry point fed arbitrary bytes (Fuzz/README.md, scripts/fuzz).
        .target(
            name: "BTLensFuzz",
            dependencies: [
                "BTLensDefinitions", "BTLensPipeline", "BTLensReport", "BTLensFilter",
                "BTLensTestSupport",
            ]),
        .executableTarget(name: "btlens-fuzz", dependencies: ["BTLensFuzz"]),
        .testTarget(name: "BTLensCoreTests", dependencies: ["BTLensCore"]),
        .testTarget(name: "BTLensCryptoTests", dependencies: ["BTLensCrypto"]),
        .testTarget(name: "BTLensCaptureTests", dependencies: ["BTLensCapture", "BTLensTestSupport"]),
        .testTarget(name: "BTLensDissectTests", dependencies: ["BTLensDissect", "BTLensTestSupport"]),
        .testTarget(name: "BTLensDefinitionsTests", dependencies: ["BTLensDefinitions", "BTLensTestSupport"]),
        .testTarget(name: "BTLensPipelineTests", dependencies: ["BTLensPipeline", "BTLensTestSupport"]),
        .testTarget(name: "BTLensReportTests", dependencies: ["BTLensReport", "BTLensTestSupport"]),
        .testTarget(name: "BTLensServeTests", dependencies: ["BTLensServe", "BTLensTestSupport"]),
        .testTarget(name: "BTLensAppLogTests", dependencies: ["BTLensAppLog", "BTLensDissect"]),
        .testTarget(name: "BTLensFilterTests", dependencies: ["BTLensFilter", "BTLensTestSupport"]),
        // The heap in use (glibc, macOS), for the tests that bound memory; through OS.heapInUse.
        .target(name: "CHeapUsage"),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "btlens", "BTLensPipeline", "BTLensReport", "BTLensFilter",
                "BTLensDefinitions", "BTLensTestSupport",
            ]),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["BTLensFuzz", "BTLensTestSupport"]),
    ]
)
