// mpcc's ns-3 reference dumbbell, for the side-by-side benchmark and the cross-check
// (bench/bench.py, bench/validate_ns3.py). Built against the PyPI `ns3` wheel by
// bench/build_ns3.sh; never used as a library, only run as a process.
//
// Topology: N senders S_i and N receivers R_i; S_i --access--> A --bottleneck--> B --access--> R_i.
// Every link is a point-to-point link (full duplex; ACKs come back the same way).
// Queues: the bottleneck device queue is a DropTail queue of `queue` packets (the packet
// being serialised is not counted: ns-3 dequeues it when transmission starts); access
// queues are `accessQueue` packets. ns-3's default root queue discs (FqCoDel) are removed,
// so the device queues are the only buffers. A full device queue stops its transmit queue
// and the traffic-control layer then drops the arriving packet (trace TcDrop): that is
// where DropTail drops show up, so bottleneck drops are counted there on the left router.
// Flows: bulk transfers (BulkSendApplication -> PacketSink) started at start + i * gap.
//
// Output: one JSON object on stdout. Goodput is bytes delivered to the receiving
// application (PacketSink::GetTotalRx). Mean RTT is measured by this program, not by
// ns-3's estimator (whose samples come from the millisecond TCP timestamp clock): the
// sender socket's Tx trace records the send time of every data segment; on every ACK that
// advances the cumulative acknowledgement from `una` to a higher value, the segment that
// starts at `una` is the one whose arrival triggered that ACK (no reordering in a
// dumbbell, ACK every segment), so now - its send time is an exact RTT sample. Segments
// that were retransmitted are skipped (Karn), and so are duplicate ACKs.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct FlowProbe
{
    std::map<uint32_t, std::pair<int64_t, bool>> inFlight; // seq -> (send time ns, retransmitted)
    bool haveUna = false;
    uint32_t una = 0;
    double rttSum = 0.0; // seconds
    uint64_t rttSamples = 0;
    uint64_t segmentsSent = 0;
    uint64_t retransmissions = 0;
    uint64_t timeouts = 0;   // entries into CA_LOSS (ns-3 enters it only on an RTO)
    uint64_t rtoExpiries = 0; // retransmission timer expiries, repeated ones included
    uint64_t recoveries = 0; // entries into CA_RECOVERY (fast recoveries)
};

// ns-3 3.44's PRR (RFC 6937, TcpPrrRecovery) with one difference: the proportional
// share prrDelivered x ssThresh / RecoverFS is computed in 64 bits. 3.44 forms that
// product in 32 bits, and with a large ssThresh it wraps after a few segments of a
// recovery (ns-3 issue #1282, fixed in ns-3-dev after 3.44); the quota is then
// meaningless. Every other choice of 3.44 is kept, quirks included, so that a run
// with `--recovery=PrrNoWrap` differs from 3.44's only by that overflow
// (docs/validation.md). g_prrWraps counts the quotas 3.44 would have got wrong.
uint64_t g_prrWraps = 0;

// Every `every`-th packet that reaches the right router over the bottleneck is lost:
// the deterministic twin of mpcc's `periodic` loss model (crates/mpcc-net's Periodic:
// the count runs over every packet on the link, the every-th is lost, the count starts
// again), so that both simulators lose the same packets and their traces can be lined up.
class PeriodicErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid =
            TypeId("mpcc::PeriodicErrorModel").SetParent<ErrorModel>().AddConstructor<PeriodicErrorModel>();
        return tid;
    }

    uint32_t m_every = 0;

  private:
    uint32_t m_count = 0;

    bool DoCorrupt(Ptr<Packet>) override
    {
        if (++m_count < m_every)
        {
            return false;
        }
        m_count = 0;
        return true;
    }

    void DoReset() override
    {
        m_count = 0;
    }
};

class TcpPrrNoWrapRecovery : public TcpClassicRecovery
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpPrrNoWrapRecovery")
                                .SetParent<TcpClassicRecovery>()
                                .AddConstructor<TcpPrrNoWrapRecovery>()
                                .SetGroupName("Internet");
        return tid;
    }

    std::string GetName() const override
    {
        return "PrrNoWrapRecovery";
    }

    void EnterRecovery(Ptr<TcpSocketState> tcb,
                       uint32_t /* dupAckCount */,
                       uint32_t /* unAckDataCount */,
                       uint32_t deliveredBytes) override
    {
        m_delivered = 0;
        m_out = 0;
        m_recoverFs = tcb->m_bytesInFlight; // 3.44 takes the pipe, not SND.NXT - SND.UNA
        DoRecovery(tcb, deliveredBytes, true);
    }

    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes, bool isDupAck) override
    {
        // A duplicate ACK counts one more segment delivered until RecoverFS is reached.
        if (isDupAck && m_delivered < m_recoverFs)
        {
            deliveredBytes += tcb->m_segmentSize;
        }
        if (deliveredBytes == 0)
        {
            return;
        }
        m_delivered += deliveredBytes;
        const int64_t pipe = tcb->m_bytesInFlight.Get();
        const int64_t ssthresh = tcb->m_ssThresh.Get();
        int64_t quota;
        if (pipe > ssthresh)
        {
            // ceil(delivered x ssthresh / RecoverFS) - out, the product in 64 bits.
            const int64_t product = int64_t(m_delivered) * ssthresh;
            g_prrWraps += product > int64_t(UINT32_MAX);
            const int64_t share = (product + m_recoverFs - 1) / m_recoverFs;
            quota = share - m_out;
        }
        else
        {
            // PRR-CRB, plus one segment (PRR-SSRB) once a retransmission is acknowledged.
            // 3.44 takes max(delivered - out, deliveredBytes) in unsigned arithmetic, so a
            // negative difference wraps past deliveredBytes and comes back negative when
            // converted to int: kept, as 3.44 does it.
            const int64_t behind = int64_t(m_delivered) - int64_t(m_out);
            int64_t limit = behind < 0 ? behind : std::max<int64_t>(behind, deliveredBytes);
            if (tcb->m_isRetransDataAcked)
            {
                limit += tcb->m_segmentSize;
            }
            quota = std::min(limit, ssthresh - pipe);
        }
        // The first ACK of a recovery always lets the fast retransmission out.
        quota = std::max<int64_t>(quota, m_out > 0 ? 0 : tcb->m_segmentSize);
        tcb->m_cWnd = static_cast<uint32_t>(pipe + quota);
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void ExitRecovery(Ptr<TcpSocketState> tcb) override
    {
        tcb->m_cWndInfl = tcb->m_cWnd;
    }

    void UpdateBytesSent(uint32_t bytesSent) override
    {
        m_out += bytesSent;
    }

    Ptr<TcpRecoveryOps> Fork() override
    {
        return CopyObject<TcpPrrNoWrapRecovery>(this);
    }

  private:
    uint32_t m_delivered{0}; // bytes delivered since the recovery began
    uint32_t m_out{0};       // bytes sent since the recovery began
    uint32_t m_recoverFs{0}; // bytes in flight when it began
};

NS_OBJECT_ENSURE_REGISTERED(TcpPrrNoWrapRecovery);

std::vector<FlowProbe> g_probes;
uint64_t g_bottleneckDrops = 0;

void
OnBottleneckDrop(Ptr<const Packet>)
{
    g_bottleneckDrops++;
}

void
OnTx(uint32_t flow, Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    if (packet->GetSize() == 0)
    {
        return; // pure ACK or control segment
    }
    FlowProbe& p = g_probes[flow];
    uint32_t seq = header.GetSequenceNumber().GetValue();
    int64_t now = Simulator::Now().GetNanoSeconds();
    p.segmentsSent++;
    auto it = p.inFlight.find(seq);
    if (it == p.inFlight.end())
    {
        p.inFlight.emplace(seq, std::make_pair(now, false));
    }
    else
    {
        it->second = std::make_pair(now, true);
        p.retransmissions++;
    }
}

void
OnRx(uint32_t flow, Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    if (!(header.GetFlags() & TcpHeader::ACK))
    {
        return;
    }
    FlowProbe& p = g_probes[flow];
    uint32_t ack = header.GetAckNumber().GetValue();
    if (!p.haveUna)
    {
        p.haveUna = true;
        p.una = ack;
        return;
    }
    if (ack <= p.una)
    {
        return; // duplicate ACK
    }
    auto trigger = p.inFlight.find(p.una);
    if (trigger != p.inFlight.end() && !trigger->second.second)
    {
        p.rttSum += (Simulator::Now().GetNanoSeconds() - trigger->second.first) * 1e-9;
        p.rttSamples++;
    }
    p.inFlight.erase(p.inFlight.begin(), p.inFlight.lower_bound(ack));
    p.una = ack;
}

void
OnCongState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_LOSS)
    {
        g_probes[flow].timeouts++;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        g_probes[flow].recoveries++;
    }
}

// ns-3 has no trace of a timer expiry, but every expiry doubles the RTO (at most 60 s,
// TcpSocketBase::ReTxTimeout), and an RTT sample sets it to max(srtt + 4 rttvar, 1 s),
// which is never exactly twice the old value. A backed-off repeat stays in CA_LOSS, so
// OnCongState does not see it; this does, as mpcc's `timeouts` counts it.
void
OnRto(uint32_t flow, Time old, Time now)
{
    if (now != old && now == Min(old + old, Seconds(60)))
    {
        g_probes[flow].rtoExpiries++;
    }
}

// --trace=i: flow i's congestion window, congestion state, smoothed RTT, data
// transmissions and ACKs on stderr, one line each ("t cwnd BYTES", "t state FROM TO",
// "t srtt SECONDS", "t tx SEQ", "t ack SEQ [LEFT-RIGHT ...]" with the SACK blocks), to
// find where mpcc's event log first differs.
int32_t g_traceFlow = -1;

void
TraceCwnd(uint32_t, uint32_t now)
{
    std::fprintf(stderr, "%.6f cwnd %u\n", Simulator::Now().GetSeconds(), now);
}

void
TraceInFlight(uint32_t, uint32_t now)
{
    std::fprintf(stderr, "%.6f inflight %u\n", Simulator::Now().GetSeconds(), now);
}

void
TraceSsthresh(uint32_t, uint32_t now)
{
    std::fprintf(stderr, "%.6f ssthresh %u\n", Simulator::Now().GetSeconds(), now);
}

void
TraceSrtt(Time, Time now)
{
    std::fprintf(stderr, "%.6f srtt %.9f\n", Simulator::Now().GetSeconds(), now.GetSeconds());
}

void
TraceState(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to)
{
    std::fprintf(stderr, "%.6f state %d %d\n", Simulator::Now().GetSeconds(), (int)from, (int)to);
}

void
TraceTx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    if (packet->GetSize() > 0)
    {
        std::fprintf(stderr, "%.6f tx %u\n", Simulator::Now().GetSeconds(), header.GetSequenceNumber().GetValue());
    }
}

void
TraceRx(Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    std::string blocks;
    if (Ptr<const TcpOptionSack> sack = DynamicCast<const TcpOptionSack>(header.GetOption(TcpOption::SACK)))
    {
        for (const auto& [left, right] : sack->GetSackList())
        {
            blocks += " " + std::to_string(left.GetValue()) + "-" + std::to_string(right.GetValue());
        }
    }
    std::fprintf(stderr,
                 "%.6f ack %u%s\n",
                 Simulator::Now().GetSeconds(),
                 header.GetAckNumber().GetValue(),
                 blocks.c_str());
}

void
AttachProbe(uint32_t flow, Ptr<Application> app)
{
    Ptr<BulkSendApplication> bulk = DynamicCast<BulkSendApplication>(app);
    Ptr<Socket> socket = bulk ? bulk->GetSocket() : DynamicCast<OnOffApplication>(app)->GetSocket();
    bool tx = socket->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTx, flow));
    bool rx = socket->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnRx, flow));
    bool state = socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, flow));
    bool rto = socket->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnRto, flow));
    NS_ABORT_MSG_UNLESS(tx && rx && state && rto, "cannot trace the sender socket");
    if (g_traceFlow == (int32_t)flow)
    {
        socket->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&TraceCwnd));
        socket->TraceConnectWithoutContext("BytesInFlight", MakeCallback(&TraceInFlight));
        socket->TraceConnectWithoutContext("SlowStartThreshold", MakeCallback(&TraceSsthresh));
        socket->TraceConnectWithoutContext("CongState", MakeCallback(&TraceState));
        socket->TraceConnectWithoutContext("RTT", MakeCallback(&TraceSrtt));
        socket->TraceConnectWithoutContext("Tx", MakeCallback(&TraceTx));
        socket->TraceConnectWithoutContext("Rx", MakeCallback(&TraceRx));
    }
}

void
SetRate(Ptr<NetDevice> device, std::string rate)
{
    device->SetAttribute("DataRate", StringValue(rate));
}

} // namespace

int
main(int argc, char* argv[])
{
    auto wallStart = std::chrono::steady_clock::now();

    std::string cc = "NewReno";
    uint32_t flows = 1;
    double duration = 60.0;
    std::string bottleneckRate = "10Mbps";
    std::string bottleneckDelay = "48ms";
    std::string accessRate = "100Mbps";
    std::string accessDelay = "1ms";
    uint32_t queue = 100;
    uint32_t accessQueue = 1000;
    uint32_t segmentSize = 1448;
    bool sack = true;
    uint32_t delAckCount = 1;
    bool hystart = true;
    std::string recovery = "Prr";
    double start = 0.1;
    double gap = 0.05;
    uint32_t bufferBytes = 16 << 20;
    double lossRate = 0.0;
    uint32_t lossEvery = 0;
    double stepAt = -1.0;
    std::string stepRate = "";
    uint32_t seed = 1;
    std::string appRate = "";

    CommandLine cmd(__FILE__);
    cmd.AddValue("cc", "congestion control: NewReno, Cubic, Vegas, Veno or WestwoodPlus", cc);
    cmd.AddValue("flows", "number of bulk flows", flows);
    cmd.AddValue("duration", "simulated time in seconds", duration);
    cmd.AddValue("bottleneckRate", "bottleneck rate", bottleneckRate);
    cmd.AddValue("bottleneckDelay", "bottleneck one-way propagation delay", bottleneckDelay);
    cmd.AddValue("accessRate", "access link rate", accessRate);
    cmd.AddValue("accessDelay", "access link one-way propagation delay", accessDelay);
    cmd.AddValue("queue", "bottleneck DropTail queue in packets", queue);
    cmd.AddValue("accessQueue", "access DropTail queues in packets", accessQueue);
    cmd.AddValue("segmentSize", "TCP segment payload in bytes", segmentSize);
    cmd.AddValue("sack", "enable SACK", sack);
    cmd.AddValue("delAckCount", "segments per ACK (1 = ACK every segment)", delAckCount);
    cmd.AddValue("hystart", "CUBIC HyStart (ns-3 default: on)", hystart);
    cmd.AddValue("recovery",
                 "loss recovery: Prr (RFC 6937, ns-3 default), PrrNoWrap (Prr without 3.44's 32-bit "
                 "overflow) or Classic (cwnd = ssthresh)",
                 recovery);
    cmd.AddValue("start", "start time of flow 0 in seconds", start);
    cmd.AddValue("gap", "start time spacing between flows in seconds", gap);
    cmd.AddValue("buffer", "socket send and receive buffers in bytes", bufferBytes);
    cmd.AddValue("lossRate", "random loss probability of each data packet on the bottleneck", lossRate);
    cmd.AddValue("lossEvery", "lose every n-th data packet on the bottleneck, deterministically (0: none)", lossEvery);
    cmd.AddValue("stepAt", "time in seconds at which the bottleneck rate changes (negative: never)", stepAt);
    cmd.AddValue("stepRate", "the bottleneck rate from stepAt on", stepRate);
    cmd.AddValue("seed", "run number of ns-3's random streams (the loss model)", seed);
    cmd.AddValue("appRate",
                 "each flow writes one segment at this constant rate (OnOffApplication always on) "
                 "instead of sending in bulk (empty: bulk)",
                 appRate);
    cmd.AddValue("trace",
                 "flow whose cwnd, ssthresh, bytes in flight, state, transmissions and ACKs go to stderr (-1: none)",
                 g_traceFlow);
    cmd.Parse(argc, argv);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    if (cc != "NewReno" && cc != "Cubic" && cc != "Vegas" && cc != "Veno" && cc != "WestwoodPlus")
    {
        std::fprintf(stderr, "--cc must be NewReno, Cubic, Vegas, Veno or WestwoodPlus, not %s\n", cc.c_str());
        return 2;
    }
    if (recovery != "Prr" && recovery != "PrrNoWrap" && recovery != "Classic")
    {
        std::fprintf(stderr, "--recovery must be Prr, PrrNoWrap or Classic, not %s\n", recovery.c_str());
        return 2;
    }

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::Tcp" + cc));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segmentSize));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(delAckCount));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(bufferBytes));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(bufferBytes));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(sack));
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::Tcp" + recovery + "Recovery")));

    NodeContainer senders;
    NodeContainer receivers;
    NodeContainer routers;
    senders.Create(flows);
    receivers.Create(flows);
    routers.Create(2);

    PointToPointHelper accessLink;
    accessLink.SetDeviceAttribute("DataRate", StringValue(accessRate));
    accessLink.SetChannelAttribute("Delay", StringValue(accessDelay));
    accessLink.SetQueue("ns3::DropTailQueue<Packet>",
                        "MaxSize",
                        QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, accessQueue)));
    PointToPointHelper bottleneckLink;
    bottleneckLink.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneckLink.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    bottleneckLink.SetQueue("ns3::DropTailQueue<Packet>",
                            "MaxSize",
                            QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queue)));

    InternetStackHelper internet;
    internet.InstallAll();

    NetDeviceContainer allDevices;
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    NetDeviceContainer core = bottleneckLink.Install(routers.Get(0), routers.Get(1));
    allDevices.Add(core);
    addresses.Assign(core);
    std::vector<Ipv4Address> receiverAddress;
    for (uint32_t i = 0; i < flows; ++i)
    {
        addresses.NewNetwork();
        NetDeviceContainer left = accessLink.Install(senders.Get(i), routers.Get(0));
        allDevices.Add(left);
        addresses.Assign(left);
        addresses.NewNetwork();
        NetDeviceContainer right = accessLink.Install(routers.Get(1), receivers.Get(i));
        allDevices.Add(right);
        receiverAddress.push_back(addresses.Assign(right).GetAddress(1));
    }
    TrafficControlHelper().Uninstall(allDevices);
    if (lossRate > 0.0)
    {
        // Packets are lost as they arrive at the right router: the data direction only.
        Ptr<RateErrorModel> loss = CreateObject<RateErrorModel>();
        loss->SetAttribute("ErrorUnit", EnumValue(RateErrorModel::ERROR_UNIT_PACKET));
        loss->SetAttribute("ErrorRate", DoubleValue(lossRate));
        loss->AssignStreams(0);
        core.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(loss));
    }
    if (lossEvery > 0)
    {
        Ptr<PeriodicErrorModel> loss = CreateObject<PeriodicErrorModel>();
        loss->m_every = lossEvery;
        core.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(loss));
    }
    if (stepAt >= 0.0)
    {
        Simulator::Schedule(Seconds(stepAt), &SetRate, core.Get(0), stepRate);
    }
    bool connected = routers.Get(0)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop",
        MakeCallback(&OnBottleneckDrop));
    NS_ABORT_MSG_UNLESS(connected, "cannot trace TcDrop");
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    g_probes.resize(flows);
    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < flows; ++i)
    {
        uint16_t port = 9000 + i;
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(receivers.Get(i));
        sinkApp.Start(Seconds(0.0));
        sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));

        ApplicationContainer sourceApp;
        if (appRate.empty())
        {
            BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(receiverAddress[i], port));
            source.SetAttribute("MaxBytes", UintegerValue(0));
            source.SetAttribute("SendSize", UintegerValue(segmentSize));
            sourceApp = source.Install(senders.Get(i));
        }
        else
        {
            OnOffHelper source("ns3::TcpSocketFactory", InetSocketAddress(receiverAddress[i], port));
            source.SetConstantRate(DataRate(appRate), segmentSize);
            source.SetAttribute("OnTime", StringValue("ns3::ConstantRandomVariable[Constant=1e6]"));
            source.SetAttribute("OffTime", StringValue("ns3::ConstantRandomVariable[Constant=0]"));
            sourceApp = source.Install(senders.Get(i));
        }
        Time startAt = Seconds(start + gap * i);
        sourceApp.Start(startAt);
        // The socket exists once the application has started: attach the probe just after.
        Simulator::Schedule(startAt + NanoSeconds(1), &AttachProbe, i, sourceApp.Get(0));
    }

    Simulator::Stop(Seconds(duration));
    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    auto runEnd = std::chrono::steady_clock::now();

    Ptr<Queue<Packet>> bottleneckQueue =
        DynamicCast<PointToPointNetDevice>(core.Get(0))->GetQueue();
    uint64_t deliveredBytes = 0;
    double rttSum = 0.0;
    uint64_t rttSamples = 0;
    std::string perFlow;
    for (uint32_t i = 0; i < flows; ++i)
    {
        uint64_t bytes = sinks[i]->GetTotalRx();
        const FlowProbe& p = g_probes[i];
        deliveredBytes += bytes;
        rttSum += p.rttSum;
        rttSamples += p.rttSamples;
        char buf[512];
        std::snprintf(buf,
                      sizeof buf,
                      "%s{\"goodput_bytes\": %llu, \"goodput_bps\": %.1f, \"rtt_mean_s\": %.9f, "
                      "\"rtt_samples\": %llu, \"segments_sent\": %llu, \"retransmissions\": %llu, "
                      "\"timeouts\": %llu, \"rto_expiries\": %llu, \"recoveries\": %llu}",
                      i ? ", " : "",
                      (unsigned long long)bytes,
                      bytes * 8.0 / duration,
                      p.rttSamples ? p.rttSum / p.rttSamples : 0.0,
                      (unsigned long long)p.rttSamples,
                      (unsigned long long)p.segmentsSent,
                      (unsigned long long)p.retransmissions,
                      (unsigned long long)p.timeouts,
                      (unsigned long long)p.rtoExpiries,
                      (unsigned long long)p.recoveries);
        perFlow += buf;
    }
    uint64_t events = Simulator::GetEventCount();
    Simulator::Destroy();
    auto wallEnd = std::chrono::steady_clock::now();

    std::printf("{\"simulator\": \"ns-3.44\", \"cc\": \"%s\", \"recovery\": \"%s\", \"hystart\": %s, "
                "\"flows\": %u, \"duration_s\": %.3f, "
                "\"bottleneck_rate\": \"%s\", \"access_rate\": \"%s\", \"queue_packets\": %u, "
                "\"delivered_bytes\": %llu, \"delivered_packets\": %llu, \"throughput_bps\": %.1f, "
                "\"rtt_mean_s\": %.9f, \"rtt_samples\": %llu, \"bottleneck_drops\": %llu, "
                "\"prr_wraps\": %llu, \"events\": %llu, \"run_s\": %.6f, \"wall_s\": %.6f, \"per_flow\": [%s]}\n",
                cc.c_str(),
                recovery.c_str(),
                hystart ? "true" : "false",
                flows,
                duration,
                bottleneckRate.c_str(),
                accessRate.c_str(),
                queue,
                (unsigned long long)deliveredBytes,
                (unsigned long long)(deliveredBytes / segmentSize),
                deliveredBytes * 8.0 / duration,
                rttSamples ? rttSum / rttSamples : 0.0,
                (unsigned long long)rttSamples,
                (unsigned long long)(g_bottleneckDrops + bottleneckQueue->GetTotalDroppedPackets()),
                (unsigned long long)g_prrWraps,
                (unsigned long long)events,
                std::chrono::duration<double>(runEnd - runStart).count(),
                std::chrono::duration<double>(wallEnd - wallStart).count(),
                perFlow.c_str());
    return 0;
}
