"""`mpcc kernel list|load NAME|unload NAME|status`: the BPF controllers on the
running kernel. Failures raise KernelError (a ValueError), which the main CLI
prints as one `mpcc: error: ...` line with exit code 2."""

from __future__ import annotations


def add_parser(sub) -> None:
    p = sub.add_parser("kernel", help="load mpcc's coupled controllers into the running Linux kernel (eBPF)")
    ks = p.add_subparsers(dest="kernel_command", required=True, metavar="ACTION")
    k = ks.add_parser("list", help="the controllers, whether built and whether loaded")
    k.set_defaults(func=cmd_list)
    k = ks.add_parser("load", help="build if needed and register a controller (root)")
    k.add_argument("name", help="a controller from `mpcc kernel list`, e.g. mpcc_lia")
    k.set_defaults(func=cmd_load)
    k = ks.add_parser("unload", help="unregister a controller (root)")
    k.add_argument("name")
    k.set_defaults(func=cmd_unload)
    k = ks.add_parser("status", help="coupled connections and their subflows' windows (root)")
    k.set_defaults(func=cmd_status)


def cmd_list(args) -> int:
    from . import list_programs

    print(f"{'controller':<13} {'algorithm':<10} {'built':<6} loaded")
    for row in list_programs():
        print(f"{row['name']:<13} {row['algorithm']:<10} {'yes' if row['built'] else 'no':<6} "
              f"{'yes' if row['loaded'] else 'no'}")
    return 0


def cmd_load(args) -> int:
    from . import load

    load(args.name)
    print(f"mpcc: loaded {args.name}; select it with sysctl net.ipv4.tcp_congestion_control={args.name} "
          f"or setsockopt(TCP_CONGESTION)")
    return 0


def cmd_unload(args) -> int:
    from . import unload

    unload(args.name)
    print(f"mpcc: unloaded {args.name}")
    return 0


def cmd_status(args) -> int:
    from . import loaded, status

    names = loaded()
    if not names:
        print("mpcc: no mpcc controller is loaded")
        return 0
    conns = status(names)
    print(f"loaded: {', '.join(names)}; coupled connections: {len(conns)}")
    for c in conns:
        print(f"  {c['controller']} connection token {c['token']:#010x}: {len(c['subflows'])} subflows")
        for s in c["subflows"]:
            print(f"    slot {s['slot']}: cwnd {s['cwnd']:.2f} segments, srtt {s['srtt_us'] / 1000:.2f} ms")
    return 0
