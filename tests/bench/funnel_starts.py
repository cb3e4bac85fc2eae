"""Shifted starts of the shipped funnel scene, for the family runs of
landing_strain.sh and quality_runs.sh: the trajectories are chaotic, so those
scripts compare families of starts, each a copy of scenes/icloth_funnel.json
with a sheet moved by a fraction of a millimetre."""
import json


def shipped_funnel(root):
    """scenes/icloth_funnel.json with its mesh paths made absolute (the copies are
    written elsewhere); root: the repository."""
    funnel = json.load(open(f"{root}/scenes/icloth_funnel.json"))
    for o in funnel["obstacles"]:
        if "obj" in o:
            o["obj"] = f"{root}/assets/" + o["obj"].split("/")[-1]
    return funnel


def shifted(scene, dx_mm=0.0, dz_mm=0.0):
    """A copy of the scene with its first sheet moved dx_mm along x and its
    second dz_mm along z."""
    s = json.loads(json.dumps(scene))
    s["cloths"][0]["transform"]["translate"][0] += dx_mm * 1e-3
    s["cloths"][1]["transform"]["translate"][2] += dz_mm * 1e-3
    return s
