package bridge

// DescribeActuators is robot_describe's view of the actuator models:
// "arms", "grippers" and "bases" list every actuator of each kind, in
// config order (empty for a kind the robot lacks), and a kind with exactly
// one actuator is also under "arm", "gripper" or "base" as before, which
// the console and existing clients read.
func (p *Previewer) DescribeActuators() map[string]any {
	arms := make([]map[string]any, len(p.Arms))
	for i, a := range p.Arms {
		arms[i] = map[string]any{"name": a.Name, "joints": a.Joints}
		if k, ok := a.Guard.(Kinematic); ok {
			for key, v := range k.DescribeWorkspace() {
				arms[i][key] = v
			}
		}
	}
	grippers := make([]map[string]any, len(p.Grippers))
	for i, g := range p.Grippers {
		grippers[i] = map[string]any{"name": g.Name, "joint": g.Joint, "min": g.Min, "max": g.Max, "max_effort": g.MaxEffort}
	}
	bases := make([]map[string]any, len(p.Bases))
	for i, b := range p.Bases {
		bases[i] = map[string]any{"name": b.Name, "frame": b.Frame, "max_drive_s": b.MaxDriveS}
		if sb, ok := b.Guard.(SafetyBase); ok && sb.Base != nil {
			c := sb.Base.Config()
			bases[i]["max_linear"], bases[i]["max_angular"], bases[i]["geofence"] = c.MaxLinearSpeed, c.MaxAngularSpeed, c.Geofence
		}
	}
	out := map[string]any{"arms": arms, "grippers": grippers, "bases": bases}
	for key, list := range map[string][]map[string]any{"arm": arms, "gripper": grippers, "base": bases} {
		if len(list) == 1 {
			out[key] = list[0]
		}
	}
	return out
}
