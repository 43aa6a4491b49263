@testable import PodsPlayback
import Testing

/// What a client of `org.pods.Pods` may choose as the audio device: a
/// device's name, never a file (REVIEW-3, N2: `alsasink device=file:PATH`
/// was saved, and the next play wrote 18 MB into PATH).
@Suite(.timeLimit(.minutes(10))) struct BusAudioSinkTests {
    @Test(arguments: [
        "default", "hw:1,0", "plughw:CARD=PCH,DEV=0", "sysdefault:CARD=Generic", "dmix", "hdmi:CARD=HDMI,DEV=1",
        "alsa_output.pci-0000_00_1f.3.analog-stereo", "bluez_sink.00_11_22_33_44_55.a2dp_sink", "pipewire",
    ])
    func devicesByNameAreTaken(_ device: String) {
        #expect(PlaybackEngine.busDeviceIsAllowed(device))
    }

    @Test(arguments: [
        "file:/home/u/.bashrc", "file:bashrc", "FILE:x", "tee:/tmp/x", "tee:x", "file", "tee", "plug:file:x",
        "plug:'file:x'", "plug:{slave file}", "/dev/dsp1", "hw:0/../x", "hw:0:file:x", "", ":x",
        "hw:CARD=x y", String(repeating: "a", count: 257), "default:\u{0}",
    ])
    func filesPathsAndOtherPCMsAreRefused(_ device: String) {
        #expect(!PlaybackEngine.busDeviceIsAllowed(device))
    }
}
