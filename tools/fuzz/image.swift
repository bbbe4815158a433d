// libFuzzer target: asset decoding (PNG and JPEG through the C shim), with a small pixel limit
// so the fuzzer can explore big headers without big allocations.
import LNoteCodecs

let maxPixels = 1 << 20

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImage(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let info = try? ImageDecoder.probe(bytes)
    if let info { precondition(info.width >= 0 && info.height >= 0) }
    // The decode target size is taken from the last byte, to reach every DCT scale.
    let t = size > 0 ? Int(data[size - 1]) : 0
    let targets: [(width: Int, height: Int)?] = [nil, (1, 1), (t + 1, t / 2 + 1)]
    for target in targets {
        do {
            let bitmap = try ImageDecoder.decode(bytes, maxPixels: maxPixels, targetSize: target)
            precondition(bitmap.width > 0 && bitmap.height > 0)
            precondition(bitmap.pixels.count == bitmap.width * bitmap.height * 4)
            if let info {
                precondition(info.width * info.height <= maxPixels)
                precondition(bitmap.width <= info.width && bitmap.height <= info.height)
            }
        } catch {
            if error.kind == .tooLarge, let info { precondition(info.width * info.height > maxPixels) }
        }
    }
    _ = JPEGCodec.readComment(bytes)
    return 0
}
