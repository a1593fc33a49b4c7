// SPDX-License-Identifier: MIT
// The shape of LULESH 2.0's communication, in C++ built by mpicxx (so
// Open MPI's C++ bindings, libmpi_cxx, are linked and call MPI from their
// constructors) with OpenMP: MPI_Init_thread (funneled), ranks on a 2-D
// grid (MPI_Dims_create), and every step a non-blocking halo exchange with
// the face and corner neighbours (receives posted first, buffers packed in
// an OpenMP loop, MPI_Waitall), an OpenMP reduction and MPI_Allreduce of
// the time step; MPI_Reduce every few steps, MPI_Barrier and MPI_Bcast at
// the end. argv: STEPS NX NY. Tags >= 10 (check_mpi.py).
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace
{

struct Neighbour {
	int rank, tag, count; // count: doubles each way
};

class Domain
{
      public:
	Domain(int rank, int size, int nx, int ny) : nx_(nx), ny_(ny), field_((size_t)nx * ny, 1.0)
	{
		int dims[2] = {0, 0};
		MPI_Dims_create(size, 2, dims);
		int px = dims[0], py = dims[1], x = rank % px, y = rank / px;
		// faces carry a row or a column, corners one value (LULESH's 26
		// neighbours in 3-D are 8 in 2-D)
		for (int dy = -1; dy <= 1; dy++)
			for (int dx = -1; dx <= 1; dx++) {
				int qx = x + dx, qy = y + dy;
				if ((!dx && !dy) || qx < 0 || qy < 0 || qx >= px || qy >= py)
					continue;
				int count = dx && dy ? 1 : dx ? ny : nx;
				// the tag names the direction as the receiver sees it
				nb_.push_back({qy * px + qx, 10 + (1 - dx) + 3 * (1 - dy), count});
				own_tags_.push_back(10 + (1 + dx) + 3 * (1 + dy));
			}
	}

	void exchange()
	{
		std::vector<MPI_Request> req;
		std::vector<std::vector<double>> in(nb_.size()), out(nb_.size());
		for (size_t i = 0; i < nb_.size(); i++) {
			in[i].resize((size_t)nb_[i].count);
			req.emplace_back();
			MPI_Irecv(in[i].data(), nb_[i].count, MPI_DOUBLE, nb_[i].rank, own_tags_[i],
			          MPI_COMM_WORLD, &req.back());
		}
		for (size_t i = 0; i < nb_.size(); i++) {
			out[i].resize((size_t)nb_[i].count);
			double *o = out[i].data();
			const int n = nb_[i].count;
#pragma omp parallel for
			for (int k = 0; k < n; k++)
				o[k] = field_[(size_t)k % field_.size()] * 0.5;
			req.emplace_back();
			MPI_Isend(o, n, MPI_DOUBLE, nb_[i].rank, nb_[i].tag, MPI_COMM_WORLD,
			          &req.back());
			sent_msgs_++;
			sent_bytes_ += 8LL * n;
		}
		MPI_Waitall((int)req.size(), req.data(), MPI_STATUSES_IGNORE);
		for (size_t i = 0; i < nb_.size(); i++)
			field_[i % field_.size()] += in[i][0] * 1e-3;
	}

	double step_dt() const
	{
		double dt = 1e30;
		const size_t n = field_.size();
#pragma omp parallel for reduction(min : dt)
		for (size_t k = 0; k < n; k++)
			dt = std::fmin(dt, 1.0 / (1.0 + field_[k]));
		return dt;
	}

	double energy() const
	{
		double e = 0;
		for (double v : field_)
			e += v;
		return e;
	}

	long long sent_msgs_ = 0, sent_bytes_ = 0;

      private:
	int nx_, ny_;
	std::vector<double> field_;
	std::vector<Neighbour> nb_;
	std::vector<int> own_tags_;
};

} // namespace

int main(int argc, char **argv)
{
	int provided = 0, rank, size;
	MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int steps = argc > 1 ? std::atoi(argv[1]) : 10;
	int nx = argc > 2 ? std::atoi(argv[2]) : 24, ny = argc > 3 ? std::atoi(argv[3]) : 16;
	Domain d(rank, size, nx, ny);
	double t = 0, total = 0;
	for (int s = 0; s < steps; s++) {
		d.exchange();
		double dt = d.step_dt(), gdt;
		MPI_Allreduce(&dt, &gdt, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
		t += gdt;
		if (s % 4 == 3) {
			double e = d.energy();
			MPI_Reduce(&e, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Bcast(&total, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	std::printf("expect sent %d %lld %lld\n", rank, d.sent_msgs_, d.sent_bytes_);
	std::fflush(stdout);
	MPI_Finalize();
	return t > 0 ? 0 : 1;
}
