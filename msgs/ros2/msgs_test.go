package msgs

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/actbridge/actbridge/cdr"
)

// bridgeTypes are the definition files every distro set holds: what the
// bridge uses and what those nest.
var bridgeTypes = []string{
	"action_msgs/msg/GoalInfo", "action_msgs/msg/GoalStatus", "action_msgs/msg/GoalStatusArray", "action_msgs/srv/CancelGoal",
	"builtin_interfaces/msg/Duration", "builtin_interfaces/msg/Time",
	"control_msgs/action/FollowJointTrajectory", "control_msgs/action/GripperCommand", "control_msgs/action/ParallelGripperCommand",
	"control_msgs/msg/GripperCommand", "control_msgs/msg/JointComponentTolerance", "control_msgs/msg/JointTolerance",
	"franka_msgs/action/ErrorRecovery", "franka_msgs/action/Grasp", "franka_msgs/action/Homing", "franka_msgs/action/Move",
	"franka_msgs/msg/GraspEpsilon",
	"geometry_msgs/msg/Accel", "geometry_msgs/msg/Point", "geometry_msgs/msg/Point32", "geometry_msgs/msg/Polygon", "geometry_msgs/msg/Pose", "geometry_msgs/msg/Pose2D", "geometry_msgs/msg/PoseStamped",
	"geometry_msgs/msg/PoseWithCovariance", "geometry_msgs/msg/Quaternion", "geometry_msgs/msg/Transform", "geometry_msgs/msg/TransformStamped", "geometry_msgs/msg/Twist",
	"geometry_msgs/msg/TwistStamped", "geometry_msgs/msg/TwistWithCovariance", "geometry_msgs/msg/Vector3", "geometry_msgs/msg/Wrench",
	"moveit_msgs/msg/AttachedCollisionObject", "moveit_msgs/msg/BoundingVolume", "moveit_msgs/msg/CartesianPoint",
	"moveit_msgs/msg/CartesianTrajectory", "moveit_msgs/msg/CartesianTrajectoryPoint", "moveit_msgs/msg/CollisionObject",
	"moveit_msgs/msg/Constraints", "moveit_msgs/msg/GenericTrajectory", "moveit_msgs/msg/JointConstraint",
	"moveit_msgs/msg/MotionPlanRequest", "moveit_msgs/msg/MotionPlanResponse", "moveit_msgs/msg/MoveItErrorCodes",
	"moveit_msgs/msg/OrientationConstraint", "moveit_msgs/msg/PositionConstraint", "moveit_msgs/msg/RobotState",
	"moveit_msgs/msg/RobotTrajectory", "moveit_msgs/msg/TrajectoryConstraints", "moveit_msgs/msg/VisibilityConstraint",
	"moveit_msgs/msg/WorkspaceParameters", "moveit_msgs/srv/GetMotionPlan",
	"nav2_msgs/action/NavigateToPose", "nav_msgs/msg/Odometry", "object_recognition_msgs/msg/ObjectType",
	"rcl_interfaces/msg/FloatingPointRange", "rcl_interfaces/msg/IntegerRange", "rcl_interfaces/msg/ListParametersResult",
	"rcl_interfaces/msg/Parameter", "rcl_interfaces/msg/ParameterDescriptor", "rcl_interfaces/msg/ParameterEvent",
	"rcl_interfaces/msg/ParameterType", "rcl_interfaces/msg/ParameterValue", "rcl_interfaces/msg/SetParametersResult",
	"rcl_interfaces/srv/DescribeParameters", "rcl_interfaces/srv/GetParameterTypes", "rcl_interfaces/srv/GetParameters",
	"rcl_interfaces/srv/ListParameters", "rcl_interfaces/srv/SetParameters", "rcl_interfaces/srv/SetParametersAtomically",
	"rmw_dds_common/msg/Gid", "rmw_dds_common/msg/NodeEntitiesInfo", "rmw_dds_common/msg/ParticipantEntitiesInfo",
	"sensor_msgs/msg/CompressedImage", "sensor_msgs/msg/Image", "sensor_msgs/msg/JointState", "sensor_msgs/msg/MultiDOFJointState",
	"shape_msgs/msg/Mesh", "shape_msgs/msg/MeshTriangle", "shape_msgs/msg/Plane", "shape_msgs/msg/SolidPrimitive",
	"std_msgs/msg/Empty", "std_msgs/msg/Header", "std_msgs/msg/String",
	"std_srvs/srv/Empty", "std_srvs/srv/SetBool", "std_srvs/srv/Trigger",
	"tf2_msgs/msg/TFMessage",
	"trajectory_msgs/msg/JointTrajectory", "trajectory_msgs/msg/JointTrajectoryPoint",
	"trajectory_msgs/msg/MultiDOFJointTrajectory", "trajectory_msgs/msg/MultiDOFJointTrajectoryPoint",
	"unique_identifier_msgs/msg/UUID",
	"ur_dashboard_msgs/msg/RobotMode", "ur_dashboard_msgs/msg/SafetyMode",
}

// addedTypes are the definition files a distro set holds beside
// bridgeTypes, from that distro on: the type description service (Iron
// and later; Humble has none).
var addedTypes = map[Distro][]string{
	Jazzy: {
		"type_description_interfaces/msg/Field", "type_description_interfaces/msg/FieldType",
		"type_description_interfaces/msg/IndividualTypeDescription", "type_description_interfaces/msg/KeyValue",
		"type_description_interfaces/msg/TypeDescription", "type_description_interfaces/msg/TypeSource",
		"type_description_interfaces/srv/GetTypeDescription",
	},
}

// removedTypes are the bridgeTypes upstream removed, from that distro on:
// geometry_msgs/Pose2D (deprecated since Jazzy, gone in common_interfaces
// 5.8.0, June 2025; the bridge never sends it).
var removedTypes = map[Distro][]string{
	Lyrical: {"geometry_msgs/msg/Pose2D"},
}

// filesOf are the definition files d's set holds.
func filesOf(d Distro) []string {
	files := slices.Clone(bridgeTypes)
	for _, prev := range Distros() {
		files = append(files, addedTypes[prev]...)
		files = slices.DeleteFunc(files, func(f string) bool { return slices.Contains(removedTypes[prev], f) })
		if prev == d {
			break
		}
	}
	return files
}

// parts are the registry names one definition file brings.
func parts(file string) []string {
	switch {
	case strings.Contains(file, "/srv/"):
		return []string{file + "_Request", file + "_Response"}
	case strings.Contains(file, "/action/"):
		var out []string
		for _, s := range []string{"_Goal", "_Result", "_Feedback", "_SendGoal_Request", "_SendGoal_Response", "_GetResult_Request", "_GetResult_Response", "_FeedbackMessage"} {
			out = append(out, file+s)
		}
		return out
	}
	return []string{file}
}

func load(t testing.TB, d Distro) *Set {
	t.Helper()
	s, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestEveryDistroHoldsExactlyTheBridgeTypesAndResolvesThem(t *testing.T) {
	for _, d := range Distros() {
		t.Run(string(d), func(t *testing.T) {
			var want []string
			for _, f := range filesOf(d) {
				want = append(want, parts(f)...)
			}
			slices.Sort(want)
			s := load(t, d)
			if got := s.Names(); !slices.Equal(got, want) {
				t.Fatalf("names:\n got %v\nwant %v", got, want)
			}
			for _, n := range s.Names() {
				if _, err := s.Struct(n); err != nil {
					t.Errorf("%s: %v", n, err)
				}
				if _, err := s.Message(n); err != nil {
					t.Errorf("%s: %v", n, err)
				}
				if _, err := s.TypeHash(n); err != nil {
					t.Errorf("%s: %v", n, err)
				}
			}
			for _, f := range filesOf(d) {
				var ifaces []string
				switch {
				case strings.Contains(f, "/srv/"):
					ifaces = []string{f}
				case strings.Contains(f, "/action/"):
					ifaces = []string{f, f + "_SendGoal", f + "_GetResult"}
				}
				for _, n := range ifaces {
					if _, err := s.TypeHash(n); err != nil {
						t.Errorf("%s: %v", n, err)
					}
				}
			}
		})
	}
}

// kiltedHashes are the RIHS01 hashes rosidl generated for Kilted, read from
// the micro-ROS build in hpmicro/hpm_sdk (main, 375f7cb):
// middleware/microros/kilted/include/<pkg>/<pkg>/<msg|srv>/detail/<type>__description.c,
// function <pkg>__<ns>__<Type>__get_type_hash. A service's own hash
// ("std_srvs/srv/Trigger") is the one rmw announces for its endpoints.
var kiltedHashes = []struct{ name, hash string }{
	{"action_msgs/msg/GoalInfo", "6398fe763154554353930716b225947f93b672f0fb2e49fdd01bb7a7e37933e9"},
	{"action_msgs/msg/GoalStatus", "32f4cfd717735d17657e1178f24431c1ce996c878c515230f6c5b3476819dbb9"},
	{"action_msgs/msg/GoalStatusArray", "6c1684b00f177d37438febe6e709fc4e2b0d4248dca4854946f9ed8b30cda83e"},
	{"action_msgs/srv/CancelGoal", "573d8b0a534451d7bc2ac8c5ffde8ac14b8593b7001175d0cd6516dcbeb8689a"},
	{"action_msgs/srv/CancelGoal_Request", "3d3c84653c1f96918086887e1dcb236faec88b81a5b14fd4cf4840065bcdf8af"},
	{"action_msgs/srv/CancelGoal_Response", "35e682cf3f510e83c70a82a4aac888496dedee56773bf9d8e5e0aa81f9e1c960"},
	{"builtin_interfaces/msg/Duration", "e8d009f659816f758b75334ee1a9ca5b5c0b859843261f14c7f937349599d93b"},
	{"builtin_interfaces/msg/Time", "b106235e25a4c5ed35098aa0a61a3ee9c9b18d197f398b0e4206cea9acf9c197"},
	{"geometry_msgs/msg/Point", "6963084842a9b04494d6b2941d11444708d892da2f4b09843b9c43f42a7f6881"},
	{"geometry_msgs/msg/Pose", "d501954e9476cea2996984e812054b68026ae0bfae789d9a10b23daf35cc90fa"},
	{"geometry_msgs/msg/Pose2D", "d68efa5b46e70f7b16ca23085474fdac5a44b638783ec42f661da64da4724ccc"},
	{"geometry_msgs/msg/PoseStamped", "10f3786d7d40fd2b54367835614bff85d4ad3b5dab62bf8bca0cc232d73b4cd8"},
	{"geometry_msgs/msg/PoseWithCovariance", "9a7c0fd234b7f45c6098745ecccd773ca1085670e64107135397aee31c02e1bb"},
	{"geometry_msgs/msg/Quaternion", "8a765f66778c8ff7c8ab94afcc590a2ed5325a1d9a076ffff38fbce36f458684"},
	{"geometry_msgs/msg/Transform", "beb83fbe698636351461f6f35d1abb20010c43d55374d81bd041f1ba2581fddc"},
	{"geometry_msgs/msg/Twist", "9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a"},
	{"geometry_msgs/msg/TwistStamped", "5f0fcd4f81d5d06ad9b4c4c63e3ea51b82d6ae4d0558f1d475229b1121db6f64"},
	{"geometry_msgs/msg/TwistWithCovariance", "49f574f033f095d8b6cd1beaca5ca7925e296e84af1716d16c89d38b059c8c18"},
	{"geometry_msgs/msg/Vector3", "cc12fe83e4c02719f1ce8070bfd14aecd40f75a96696a67a2a1f37f7dbb0765d"},
	{"nav_msgs/msg/Odometry", "3cc97dc7fb7502f8714462c526d369e35b603cfc34d946e3f2eda2766dfec6e0"},
	{"rcl_interfaces/msg/FloatingPointRange", "e6af23a23c177fee5f3075c8b1e435162a9b63c863d78c06017460b49684262d"},
	{"rcl_interfaces/msg/IntegerRange", "f7b7fdc0f65f07702e099218e13288c3963bcb9345bde78b560e6cd19800fc5a"},
	{"rcl_interfaces/msg/ListParametersResult", "237ae3428413dcbcfb452b510c42355f3a2b021dc091afa3e18526d57022f1cd"},
	{"rcl_interfaces/msg/Parameter", "ddfe6442cffc462317adb5c92536a7b6dd55858c5c3e1e328165a6b73c2831af"},
	{"rcl_interfaces/msg/ParameterDescriptor", "52175dbfda6c51153101d33d2a9da05743f66f02d5ab2ca9ec4709b46b73d704"},
	{"rcl_interfaces/msg/ParameterEvent", "043e627780fcad87a22d225bc2a037361dba713fca6a6b9f4b869a5aa0393204"},
	{"rcl_interfaces/msg/ParameterType", "df29ed057a834862187be24dd187d981790ff3ea6502f4cd27b432cbc42c6d46"},
	{"rcl_interfaces/msg/ParameterValue", "115fc089a387e23c7ecd3525c9189c379109119d6ab82e8dfbde0fdf6a7f9b68"},
	{"rcl_interfaces/msg/SetParametersResult", "cfcc0fb0371ee5159b403960ef4300f8f9d2f1fd6117c8666b7f9654d528a9b1"},
	{"rcl_interfaces/srv/DescribeParameters", "845b484d71eb0673dae682f2e3ba3c4851a65a3dcfb97bddd82c5b57e91e4cff"},
	{"rcl_interfaces/srv/DescribeParameters_Request", "05dd1c2bc87dec2627105c8070d6f9725c781a4f2ab852975bf105462b82b644"},
	{"rcl_interfaces/srv/DescribeParameters_Response", "ad6747319613c6131589e062e095b469a46cc764f7d0f12a001a49e6cd893995"},
	{"rcl_interfaces/srv/GetParameterTypes", "da199c878688b3e530bdfe3ca8f74cb9fa0c303101e980a9e8f260e25e1c80ca"},
	{"rcl_interfaces/srv/GetParameterTypes_Request", "87d7ec5ef545d4daa289d500025d31fb2437bc8b8365ca367161c4dac4be33fd"},
	{"rcl_interfaces/srv/GetParameterTypes_Response", "ac1335dce67c478e669434f6ac2fbff34fcd529580f272d3006785ba8b54e47f"},
	{"rcl_interfaces/srv/GetParameters", "bf9803d5c74cf989a5de3e0c2e99444599a627c7ff75f97b8c05b01003675cbc"},
	{"rcl_interfaces/srv/GetParameters_Request", "135a9e1c3d7cebef792f6687d7ddf99949b21a0bd9a320d863a9110a3f5cf4d6"},
	{"rcl_interfaces/srv/GetParameters_Response", "9fa773b46e39cc5d02db6224d8fd520bb9caeeffc2b27c96c1e59431baba9f2a"},
	{"rcl_interfaces/srv/ListParameters", "3e6062bfbb27bfb8730d4cef2558221f51a11646d78e7bb30a1e83afac3aad9d"},
	{"rcl_interfaces/srv/ListParameters_Request", "a1b0b5d6b967a5b8ac5bc8563c3ea678f349e312a6a4967227c5a96bc5ce38df"},
	{"rcl_interfaces/srv/ListParameters_Response", "31b937b82de3612426be79f231e386259f97e8dc843e3f2845288b4bfa296bdd"},
	{"rcl_interfaces/srv/SetParameters", "56eed9a67e169f9cb6c1f987bc88f868c14a8fc9f743a263bc734c154015d7e0"},
	{"rcl_interfaces/srv/SetParametersAtomically", "0e192ef259c07fc3c07a13191d27002222e65e00ccec653ca05e856f79285fcd"},
	{"rcl_interfaces/srv/SetParametersAtomically_Request", "db0bd950ed5ed867a0e90b225e44dea382d762c0762ff3e0ee842190042a59e5"},
	{"rcl_interfaces/srv/SetParametersAtomically_Response", "31b1a38c5b0b9d893ee24da45f69638f4561c78461d82d52750f429b534502b8"},
	{"rcl_interfaces/srv/SetParameters_Request", "130d46386b7e84ea9ecf60608a4d83cbe5e5cb7c6cc5b712b7a4e3a6c254e932"},
	{"rcl_interfaces/srv/SetParameters_Response", "7a0e8140a0b8d98308fa81a5403a766e610af29a239caf54b7553227906fc266"},
	{"sensor_msgs/msg/CompressedImage", "15640771531571185e2efc8a100baf923961a4d15d5569652e6cb6691e8e371a"},
	{"sensor_msgs/msg/Image", "d31d41a9a4c4bc8eae9be757b0beed306564f7526c88ea6a4588fb9582527d47"},
	{"sensor_msgs/msg/JointState", "a13ee3a330e346c9d87b5aa18d24e11690752bd33a0350f11c5882bc9179260e"},
	{"std_msgs/msg/Empty", "20b625256f32d5dbc0d04fee44f43c41e51c70d3502f84b4a08e7a9c26a96312"},
	{"std_msgs/msg/Header", "f49fb3ae2cf070f793645ff749683ac6b06203e41c891e17701b1cb597ce6a01"},
	{"std_msgs/msg/String", "df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"},
	{"std_srvs/srv/Empty", "5888399dedec5ccc85ea6451949fd2c9f97bfdf963f9a588821639fcd31b5d19"},
	{"std_srvs/srv/Empty_Request", "458eaf200a3f63d9cc53d19436edebc0c140ef4c93ca75d5bd4ce19fd7759e35"},
	{"std_srvs/srv/Empty_Response", "0a2858b3f60df644a61d0fa44cfc923a3d3628e0ad9c8ad8534b1a2c92a413dc"},
	{"std_srvs/srv/SetBool", "abe9e4bb6b41b40e6789712c00ec8871923e089af3f667a79992a428cff2da0a"},
	{"std_srvs/srv/SetBool_Request", "c62fbb99d94e1b25e8ef9e109f9581956bb1b3361a45a4e5810c36a90d29932e"},
	{"std_srvs/srv/SetBool_Response", "d0814e7f7b4880ab77e9c57426c7aa1562ab69f11eef8e2e968812f9cbd0b059"},
	{"std_srvs/srv/Trigger", "eeff2cd6fa5ad9d27cdf4dec64818317839b62f212a91e6b5304b634b2062c5f"},
	{"std_srvs/srv/Trigger_Request", "d010825374ce8918e72bfd826c82603e60f45419e932ea976f807b74a863a199"},
	{"std_srvs/srv/Trigger_Response", "2d946c21e2fc3f1e9ca6986a8191d85fcc70097a8bb7771a053564bc47009cdf"},
	{"trajectory_msgs/msg/JointTrajectory", "179b33eba59d676f6d967ac71fe35e7ca2f64b2f3928f4a018cec115e213796e"},
	{"trajectory_msgs/msg/JointTrajectoryPoint", "de8907036d8bd45aac6f30cc9044a3d4a329c42cbf719aff7d95a584cfa532d7"},
	{"trajectory_msgs/msg/MultiDOFJointTrajectory", "3a18fd095292a65cfde8833c72985a30af981f3ec44494655c6267262b443a4a"},
	{"trajectory_msgs/msg/MultiDOFJointTrajectoryPoint", "6ada1085b5ee64eaa069b074968e69f0e27c8c5e6f5bb0586dd1c834ef0e32b8"},
	// type_description_interfaces: hpm_sdk a52d08d, same folder layout.
	{"type_description_interfaces/msg/Field", "c0b01379cd4226281285ccaf6be46653968f855f7c5e41614ff5d7a854efef7c"},
	{"type_description_interfaces/msg/FieldType", "a70b6dd919645a03a3586f7f821defbc886ea3e531a1d95cc0f380a3973ccaa6"},
	{"type_description_interfaces/msg/IndividualTypeDescription", "55c827d86c3c141bdd318fe6c22e11190e4d3b37c8f4f9751a084aa05ce96560"},
	{"type_description_interfaces/msg/KeyValue", "274fe56bf14f33c7512e34c646a37579ee36779f745f049a9760763e817f0c42"},
	{"type_description_interfaces/msg/TypeDescription", "739f2508c9fa3a6f330913ff5b9d25fb74159a077da71e1087f51a60c12a080b"},
	{"type_description_interfaces/msg/TypeSource", "faeaec7596c04ecf5b6e99ad225e4c7cbb997ad5435f793526fb3984d011aae5"},
	{"type_description_interfaces/srv/GetTypeDescription", "69b9c19c1021405984cc60dbbb1edceb147a6538b411d812ba6afabeed962cd5"},
	{"type_description_interfaces/srv/GetTypeDescription_Request", "470f56ccbcf13d55c78c8b735fb12da03e639e5acded994426c89d94778d9e28"},
	{"type_description_interfaces/srv/GetTypeDescription_Response", "648c49d976240861a482f961c5621ddd0d2135d8cce6f297a76d4f6376d93b75"},
	{"unique_identifier_msgs/msg/UUID", "1b8e8aca958cbea28fe6ef60bf6c19b683c97a9ef60bb34752067d0f2f7ab437"},
}

// TestTypeHashesEqualRosidlsKiltedHashes checks Kilted against rosidl, and
// Lyrical too: rosidl's hashing (rosidl_generator_type_description) is the
// same code in Lyrical (5.2.1) as in Kilted (5.0.0), so a definition
// Lyrical left unchanged hashes as Kilted's. Pose2D is gone in Lyrical.
func TestTypeHashesEqualRosidlsKiltedHashes(t *testing.T) {
	for _, d := range []Distro{Kilted, Lyrical} {
		t.Run(string(d), func(t *testing.T) { checkHashes(t, load(t, d), kiltedHashes, removedTypes[d]) })
	}
}

// buildHashes are RIHS01 hashes rosidl generated in public colcon builds
// (build/<pkg>/rosidl_generator_c/<pkg>/action/detail/<type>__description.c):
// nav2_msgs NavigateToPose from thomasankara/hive_ws2 (bb4ae94), and
// control_msgs FollowJointTrajectory from RaviRoKes/ros2_rolling (9e370dd),
// a build from before control_msgs 6.3 added the feedback's index; and
// moveit_msgs GetMotionPlan and what it nests from orka375/moveit2
// (5d41409, build/moveit_msgs/rosidl_generator_c/moveit_msgs/srv/detail/
// get_motion_plan__description.c, a moveit_msgs 2.6-or-later build); and
// tf2_msgs TFMessage from rosidl_generator_c's tf_message__struct.h in
// micro-ROS's generated headers (micro-ROS/micro_ros_arduino,
// src/tf2_msgs/msg/detail/, the "Type Hash" form: the earlier "Type
// Version Hash" form of 2023 hashed differently), which covers the
// TransformStamped it nests. Each holds in the distros whose definitions
// equal that build's.
var buildHashes = []struct {
	distros    []Distro
	name, hash string
}{
	{[]Distro{Jazzy, Kilted}, "nav2_msgs/action/NavigateToPose", "a56dba8a3234a1215e610180dc703ae25bbf406dded8b54887891c9732857eab"},
	{[]Distro{Jazzy, Kilted}, "nav2_msgs/action/NavigateToPose_Feedback", "9ebc544c7d41bd8c6060b191bf9f5e4ddca6c2f61ee9e04fcb62ed5d67218a33"},
	{[]Distro{Jazzy, Kilted}, "nav2_msgs/action/NavigateToPose_FeedbackMessage", "9d1f6fa2eb975ce733b419ac2e97b134d8ff92b6478b6559feed9a50bdfd82b3"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "nav2_msgs/action/NavigateToPose_Goal", "22a9dffbd6733011220460bd52edbc7843c8fc86282d40bc7ad3ca176a9dec10"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "nav2_msgs/action/NavigateToPose_Result", "ddbff7fc6d1e51d774d5defdb8398a57cb23fa8709355002d676408bb4860b85"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "nav2_msgs/action/NavigateToPose_SendGoal", "a4fcb3bee1bf32e21a0e541a943b221aa0826996e2c98f079b47022b256f48b5"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "nav2_msgs/action/NavigateToPose_SendGoal_Request", "e9381f2acfe9fa8c4838a277d0cde28a93c483564827b9f13496b9c2092e4f09"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "nav2_msgs/action/NavigateToPose_SendGoal_Response", "99f97fcbb07daf024df4b8c3f02f19ce7fa3183fcedfb76b8772a61a371a55fa"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "nav2_msgs/action/NavigateToPose_GetResult", "c407920357d566771e8882b4ef4d1f1a84ee922d609920ccd57faa6d6e391dc5"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "nav2_msgs/action/NavigateToPose_GetResult_Request", "106d3457cf0db4c4a8d3373bab3ff6aa8ba8ad99ae6392ce9784830a7d04ac93"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "nav2_msgs/action/NavigateToPose_GetResult_Response", "c59f178c377de5318919c00bdbf7884cb3b185acfdffceba6c9f161e0aa3cc81"},
	{[]Distro{Jazzy}, "control_msgs/action/FollowJointTrajectory", "738ebcb7a2d7cfa42f9f1001cc99ce3a4383d1cfe508015d9be8485e4b1c66f6"},
	{[]Distro{Jazzy}, "control_msgs/action/FollowJointTrajectory_Feedback", "3fd0aaecf71725121ae1ff7f01098a5e0da581e672be18a6b2c286cb43d96b49"},
	{[]Distro{Jazzy}, "control_msgs/action/FollowJointTrajectory_FeedbackMessage", "80398fcb9674a79081a9906e2ccf0c804dd7cb15e22e362e606ee87186beab71"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "control_msgs/action/FollowJointTrajectory_Goal", "8a9060704b269608f5a340934cc26e66869dd14bdac29e2e7fd9ec8b9882d205"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "control_msgs/action/FollowJointTrajectory_Result", "8002e99ed2c14c6faa522f2a93c26d744c5982f254f9e98ff9c6f19789bdb220"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "control_msgs/action/FollowJointTrajectory_SendGoal", "b13789dddc325a7a962825c45e28c77d37237ec129dd0c34dc5994562938c57f"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "control_msgs/action/FollowJointTrajectory_SendGoal_Request", "179c93691f1f6d1d115881ff88c3917b7cc6eac2ba4bf56766cc7c4389e19ef1"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "control_msgs/action/FollowJointTrajectory_SendGoal_Response", "e6a48ba740ae254500129a877f0b071be8663a115da1a539b74599cc97921fbf"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "control_msgs/action/FollowJointTrajectory_GetResult", "e3ceb38e3e1867c8dc0f46014df26e90eb93422f27e9e97f936e07f94be4bc8b"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "control_msgs/action/FollowJointTrajectory_GetResult_Request", "ecf7ea8463d3beec7084bca75216d0b01b87b6e1e4e09679bb26093041efcbe9"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "control_msgs/action/FollowJointTrajectory_GetResult_Response", "08eefbaa146ce02ba45898d5e99160afd6c4c54a30d159aee0f2ca6035b1580f"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "control_msgs/msg/JointTolerance", "c254f9cece0f3b733017b6990fd46d1326e25242d6b8844398c97d9a88e7d648"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "moveit_msgs/srv/GetMotionPlan", "0e118e1d8d53d5fea8eea309fc06a58239fa0e617864127e7de8399ab7335b27"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "moveit_msgs/srv/GetMotionPlan_Request", "607f444bd22f6ed971c85c76a1fdd44cc556d6bcc0f1d501449bb01aef7df60a"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "moveit_msgs/srv/GetMotionPlan_Response", "b5980d78fafab3a2c20a85d2cb306e1f9fe06ef3d49fa7a47803f229fb89f5a2"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "moveit_msgs/msg/MotionPlanRequest", "f82ed20da5f8f93146999c1a3cfe34b56b97fc10333b40cac69782a1210888d7"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "moveit_msgs/msg/MotionPlanResponse", "bc0dc15c0462edc942dc45dc689cd1a1b1a64c1412002a2e8d210eff2477d62a"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "moveit_msgs/msg/MoveItErrorCodes", "dcda8a9950cf6dd6ac221c2c0d2509f52f136afa0403dd19beacdf07e83e4a07"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "moveit_msgs/msg/RobotState", "7c516dc15713e545cb2836c5ca745fbdcfcc10de4855a41c83e6b4bf1afc3f83"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "shape_msgs/msg/SolidPrimitive", "2802a15190aadc3f496584df4b0b4c5824d8a0b31aaef839faa75bc34dda38ac"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "object_recognition_msgs/msg/ObjectType", "5eb3ee3976403366d7c50d7dbee8bec96b3bced1e752674a7194a35841632134"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "sensor_msgs/msg/MultiDOFJointState", "4d4ded702cfba7ff3ec783835c1a1425f75e53939a430ff355d1fee4b3bbc40b"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "geometry_msgs/msg/Wrench", "018e8519d57c16adbe97c9fe1460ef21fec7e31bc541de3d653a35895677ce52"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "geometry_msgs/msg/Accel", "dc448243ded9b1fcbcca24aba0c22f013dae06c354ba2d849571c0a2a3f57ca0"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "geometry_msgs/msg/Polygon", "3782f9f0bf044964d692d6c017d705e37611afb1f0bf6a9dee248a7dda0f784a"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "tf2_msgs/msg/TFMessage", "e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087"},
	{[]Distro{Jazzy, Kilted, Lyrical}, "control_msgs/msg/JointComponentTolerance", "739ea7566931944d33830fa10f1bf5e7a7fbdc3172bce7a7eaac642bd6e3ffa4"},
}

func TestActionHashesEqualRosidlsFromPublicBuilds(t *testing.T) {
	for _, d := range []Distro{Jazzy, Kilted, Lyrical} {
		t.Run(string(d), func(t *testing.T) {
			var vs []struct{ name, hash string }
			for _, c := range buildHashes {
				if slices.Contains(c.distros, d) {
					vs = append(vs, struct{ name, hash string }{c.name, c.hash})
				}
			}
			checkHashes(t, load(t, d), vs, nil)
		})
	}
}

// checkHashes compares s's hashes with rosidl's; a type in gone must be
// missing from s instead.
func checkHashes(t *testing.T, s *Set, want []struct{ name, hash string }, gone []string) {
	t.Helper()
	for _, c := range want {
		if slices.Contains(gone, c.name) {
			if _, err := s.TypeHash(c.name); !errors.Is(err, ErrNotInDistro) {
				t.Errorf("%s: %v, want ErrNotInDistro", c.name, err)
			}
			continue
		}
		got, err := s.TypeHash(c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != "RIHS01_"+c.hash {
			t.Errorf("%s: %s, want RIHS01_%s", c.name, got, c.hash)
		}
	}
}

// distroDifferences are the types whose wire layout (and so hash) differs
// from the previous distro's: everything else is the same in all three.
var distroDifferences = map[Distro][]string{
	// Gid is char[24] in Humble, char[16] from Iron on.
	Jazzy: {"rmw_dds_common/msg/Gid", "rmw_dds_common/msg/NodeEntitiesInfo", "rmw_dds_common/msg/ParticipantEntitiesInfo",
		// Humble's result is std_msgs/Empty; Jazzy's error_code, error_msg.
		"nav2_msgs/action/NavigateToPose_Result", "nav2_msgs/action/NavigateToPose_GetResult_Response",
		// moveit_msgs 2.6 renames cartesian_speed_end_effector_link to
		// cartesian_speed_limited_link and adds message and source to the error code.
		"moveit_msgs/msg/MotionPlanRequest", "moveit_msgs/msg/MoveItErrorCodes", "moveit_msgs/msg/MotionPlanResponse",
		"moveit_msgs/srv/GetMotionPlan_Request", "moveit_msgs/srv/GetMotionPlan_Response"},
	// control_msgs 6.3 (Kilted, June 2025) adds index and multi_dof_index to the feedback.
	Kilted: {"control_msgs/action/FollowJointTrajectory_Feedback", "control_msgs/action/FollowJointTrajectory_FeedbackMessage"},
	// Nav2 1.5 (Lyrical) adds position_tracking_error and heading_tracking_error to the feedback.
	Lyrical: {"nav2_msgs/action/NavigateToPose_Feedback", "nav2_msgs/action/NavigateToPose_FeedbackMessage"},
}

func TestDistrosDifferExactlyWhereUpstreamDoes(t *testing.T) {
	ds := Distros()
	for i := 1; i < len(ds); i++ {
		prev, cur := load(t, ds[i-1]), load(t, ds[i])
		var differ []string
		for _, n := range cur.Names() {
			if prev.Definition(n) == nil {
				continue // added in cur: addedTypes
			}
			// The hash covers every field's name and type, nested types too.
			a, err := prev.TypeHash(n)
			if err != nil {
				t.Fatal(err)
			}
			b, err := cur.TypeHash(n)
			if err != nil {
				t.Fatal(err)
			}
			if a != b {
				differ = append(differ, n)
			}
		}
		want := slices.Sorted(slices.Values(distroDifferences[ds[i]]))
		if !slices.Equal(differ, want) {
			t.Errorf("%s → %s: %v differ, want %v", ds[i-1], ds[i], differ, want)
		}
	}
}

func TestDistroDifferencesHaveTheUpstreamShape(t *testing.T) {
	field := func(d Distro, name string, i int) string {
		st, err := load(t, d).Struct(name)
		if err != nil {
			t.Fatal(err)
		}
		if i >= st.NumField() {
			return ""
		}
		f := st.Field(i)
		typ := f.Type.Kind.String()
		if f.Type.Struct != nil {
			typ = f.Type.Struct.Name()
		}
		switch f.Type.Collection {
		case cdr.Array:
			typ += fmt.Sprintf("[%d]", f.Type.Len)
		case cdr.Sequence:
			typ += "[]"
		}
		return f.Name + " " + typ
	}
	for _, c := range []struct {
		d    Distro
		typ  string
		i    int
		want string
	}{
		{Humble, "rmw_dds_common/msg/Gid", 0, "data uint8[24]"},
		{Jazzy, "rmw_dds_common/msg/Gid", 0, "data uint8[16]"},
		{Kilted, "rmw_dds_common/msg/Gid", 0, "data uint8[16]"},
		{Humble, "nav2_msgs/action/NavigateToPose_Result", 0, "result std_msgs/msg/Empty"},
		{Jazzy, "nav2_msgs/action/NavigateToPose_Result", 0, "error_code uint16"},
		{Kilted, "nav2_msgs/action/NavigateToPose_Result", 1, "error_msg string"},
		{Jazzy, "control_msgs/action/FollowJointTrajectory_Feedback", 5, "multi_dof_joint_names string[]"},
		{Jazzy, "control_msgs/action/FollowJointTrajectory_Feedback", 9, ""},
		{Kilted, "control_msgs/action/FollowJointTrajectory_Feedback", 5, "index int32"},
		{Kilted, "control_msgs/action/FollowJointTrajectory_Feedback", 10, "multi_dof_index int32"},
		{Lyrical, "control_msgs/action/FollowJointTrajectory_Feedback", 10, "multi_dof_index int32"},
		{Lyrical, "rmw_dds_common/msg/Gid", 0, "data uint8[16]"},
		{Lyrical, "nav2_msgs/action/NavigateToPose_Result", 1, "error_msg string"},
		{Kilted, "nav2_msgs/action/NavigateToPose_Feedback", 5, ""},
		{Lyrical, "nav2_msgs/action/NavigateToPose_Feedback", 5, "position_tracking_error float32"},
		{Lyrical, "nav2_msgs/action/NavigateToPose_Feedback", 6, "heading_tracking_error float32"},
	} {
		if got := field(c.d, c.typ, c.i); got != c.want {
			t.Errorf("%s %s field %d: %q, want %q", c.d, c.typ, c.i, got, c.want)
		}
	}
}

func TestUnknownDistroAndMissingTypeAreNamedErrors(t *testing.T) {
	if _, err := Load("rolling"); !errors.Is(err, ErrUnknownDistro) {
		t.Errorf("Load(rolling): %v, want ErrUnknownDistro", err)
	}
	if _, err := ParseDistro("Iron"); !errors.Is(err, ErrUnknownDistro) {
		t.Errorf("ParseDistro(Iron): %v, want ErrUnknownDistro", err)
	}
	if d, err := ParseDistro("Jazzy"); d != Jazzy || err != nil {
		t.Errorf("ParseDistro(Jazzy) = %q, %v", d, err)
	}
	s := load(t, Humble)
	for _, n := range []string{"control_msgs/action/FollowWrenchTrajectory_Goal", "std_msgs/Float64"} {
		_, err := s.Struct(n)
		if !errors.Is(err, ErrNotInDistro) || !strings.Contains(err.Error(), "humble") {
			t.Errorf("Struct(%s): %v, want ErrNotInDistro naming humble", n, err)
		}
		if _, err := s.TypeHash(n); !errors.Is(err, ErrNotInDistro) {
			t.Errorf("TypeHash(%s): %v", n, err)
		}
		if _, err := s.TypeHash(n + "_Request"); !errors.Is(err, ErrNotInDistro) {
			t.Errorf("TypeHash(%s_Request): %v", n, err)
		}
		if _, err := s.Message(n); !errors.Is(err, ErrNotInDistro) {
			t.Errorf("Message(%s): %v", n, err)
		}
	}
	if _, err := s.Struct("std_msgs/Header"); err != nil {
		t.Errorf("short name: %v", err)
	}
}

// Every package the binary embeds names its upstream and licence, so the
// NOTICE (package notice) can credit it.
func TestEveryEmbeddedPackageHasALicence(t *testing.T) {
	p, err := Packages()
	if err != nil {
		t.Fatal(err)
	}
	if len(p) == 0 {
		t.Fatal("no packages found")
	}
	for _, n := range PackageNames(p) {
		if s := p[n]; s.Repository == "" || s.Licence == "" {
			t.Errorf("package %s has no source or licence in sources", n)
		}
	}
}
